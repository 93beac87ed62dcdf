package mcpauth

import (
	"net/http"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

// Public messages of docs/contract/protocol.md A7, byte for byte.
const (
	MsgMissingHeader     = "Missing Authorization header"
	MsgInvalidHeader     = "Invalid Authorization header format"
	MsgMCPSecret         = "MCP_JWT_SECRET must be set and at least 32 characters"
	MsgInvalidToken      = "Invalid or expired API token"
	MsgServiceRoleConfig = "Server configuration error: SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY must be set"
	MsgRevocationPrefix  = "Could not verify token revocation status: "
	MsgRevoked           = "API token has been revoked"
	MsgServerConfig      = "Server configuration error"
	MsgRoleLookupFailed  = "Failed to verify user permissions"
	MsgNotStaff          = "User must be an instructor or grader in at least one class"
	MsgUnauthorized      = "Unauthorized"
)

// Sentinel errors. They are never mutated; WithCause returns copies.
var (
	errMissingHeader     = apierror.Unauthorized(apierror.ReasonMissing, MsgMissingHeader)
	errInvalidHeader     = apierror.Unauthorized(apierror.ReasonMalformed, MsgInvalidHeader)
	errMCPSecret         = apierror.New(http.StatusInternalServerError, apierror.ReasonConfig, MsgMCPSecret)
	errInvalidToken      = apierror.Unauthorized(apierror.ReasonInvalid, MsgInvalidToken)
	errServiceRoleConfig = apierror.New(http.StatusInternalServerError, apierror.ReasonConfig, MsgServiceRoleConfig)
	errRevoked           = apierror.Unauthorized(apierror.ReasonRevoked, MsgRevoked)
	errRoleLookup        = apierror.New(http.StatusInternalServerError, apierror.ReasonUpstream, MsgRoleLookupFailed)
	errNotStaff          = apierror.New(http.StatusForbidden, apierror.ReasonForbidden, MsgNotStaff)
)

func revocationUnavailable(cause error) *apierror.Error {
	return &apierror.Error{
		Status:  http.StatusServiceUnavailable,
		Reason:  apierror.ReasonUpstream,
		Message: MsgRevocationPrefix + causeMessage(cause, false),
		Err:     cause,
	}
}

// UpstreamUnavailable returns the 503 of docs/contract/protocol.md B3:
// "<operation> is temporarily unavailable: <cause>".
func UpstreamUnavailable(operation string, cause error) *apierror.Error {
	return &apierror.Error{
		Status:  http.StatusServiceUnavailable,
		Reason:  apierror.ReasonUpstream,
		Message: operation + " is temporarily unavailable: " + causeMessage(cause, true),
		Err:     cause,
	}
}
