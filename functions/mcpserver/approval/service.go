package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pawtograder/mcp-gateway/gateway/supabasesignin"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultTTL is how long a proposal waits for its decision.
const DefaultTTL = 10 * time.Minute

// PathPrefix is where the approval pages live inside mcp-server's path.
const PathPrefix = "/approve"

// Defaults of Options.
const (
	DefaultMaxPending   = 20
	DefaultRetention    = 30 * 24 * time.Hour
	DefaultWriteTimeout = 15 * time.Second
)

// Approver returns the client an approval runs through: userID's own,
// with a JWT minted for approving actionID (userclient.Factory.ForApproval).
type Approver func(ctx context.Context, userID, actionID string) (RPC, error)

// Options configures a Service.
type Options struct {
	// BaseURL is mcp-server's public URL (<GATEWAY_PUBLIC_URL>/functions/v1/mcp-server);
	// approval links are BaseURL + PathPrefix + "/<id>". Required.
	BaseURL string
	// Store keeps the pending actions. Required.
	Store Store
	// Approver makes the client an approval runs through. Required.
	Approver Approver
	// Secrets are GATEWAY_OAUTH_SECRET's values. Required.
	Secrets []string
	// AuthURL is where the gateway reaches Supabase Auth (the code
	// exchange); AuthPublicURL where browsers do (default AuthURL).
	AuthURL, AuthPublicURL string
	// AnonKey is sent as apikey to AuthURL ("" when Auth is reached
	// directly).
	AnonKey string
	// Providers are the Supabase Auth providers offered for sign-in.
	// Default github.
	Providers []string
	// HTTPClient reaches Supabase Auth. Default: a client with a 10 s
	// timeout.
	HTTPClient *http.Client
	// TTL is how long a proposal waits. Default DefaultTTL.
	TTL time.Duration
	// MaxPending bounds the proposals one person has waiting. Default
	// DefaultMaxPending.
	MaxPending int
	// Retention is how long decided and lapsed actions are kept before
	// RunPurge deletes them. Default DefaultRetention.
	Retention time.Duration
	// WriteTimeout bounds a decision and its write, whatever becomes of
	// the browser's request. Default DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives operational logs; Audit one line per proposal,
	// decision, expiry and completed write. Default: discard.
	Logger, Audit *slog.Logger
	// Metrics, when set, registers gateway_mcp_write_actions_total.
	Metrics prometheus.Registerer
	// CallbacksPerMinute bounds the sign-in callbacks one client address
	// brings to Supabase Auth. Default DefaultCallbacksPerMinute.
	CallbacksPerMinute int
	// ClientAddress is the address the callback limit counts against
	// (the gateway passes its trusted-proxy rule). Default: the
	// connection's peer.
	ClientAddress func(*http.Request) string
}

// Service implements Approvals and serves the approval pages.
type Service struct {
	opts      Options
	supabase  supabasesignin.Auth
	keys      *keyring
	secure    bool
	path      string // the pages' URL path, for the cookie
	events    *prometheus.CounterVec
	callbacks *callbackLimit
}

var _ Approvals = (*Service)(nil)

// New validates opts.
func New(opts Options) (*Service, error) {
	var errs []error
	if opts.Store == nil || opts.Approver == nil {
		errs = append(errs, errors.New("approval: Options.Store and Options.Approver are required"))
	}
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Errorf("approval: Options.BaseURL must be an absolute http(s) URL (got %q)", opts.BaseURL))
	}
	if opts.AuthURL == "" {
		errs = append(errs, errors.New("approval: Options.AuthURL is required"))
	}
	keys, kerr := newKeyring(opts.Secrets)
	if kerr != nil {
		errs = append(errs, kerr)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.CallbacksPerMinute <= 0 {
		opts.CallbacksPerMinute = DefaultCallbacksPerMinute
	}
	if opts.ClientAddress == nil {
		opts.ClientAddress = peerAddress
	}
	if opts.AuthPublicURL == "" {
		opts.AuthPublicURL = opts.AuthURL
	}
	if len(opts.Providers) == 0 {
		opts.Providers = []string{"github"}
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Audit == nil {
		opts.Audit = slog.New(slog.DiscardHandler)
	}
	s := &Service{opts: opts, keys: keys, secure: u.Scheme == "https", path: u.Path + PathPrefix,
		supabase: supabasesignin.Auth{URL: opts.AuthURL, PublicURL: opts.AuthPublicURL, AnonKey: opts.AnonKey, HTTP: opts.HTTPClient}}
	s.callbacks = newCallbackLimit(opts.CallbacksPerMinute, opts.Now)
	s.events = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_mcp_write_actions_total",
		Help: "MCP write actions by event (proposed, approved, rejected, expired, written, failed) and tool.",
	}, []string{"event", "tool"})
	if opts.Metrics != nil {
		if err := opts.Metrics.Register(s.events); err != nil {
			return nil, fmt.Errorf("approval: registering metrics: %w", err)
		}
	}
	return s, nil
}

// now is the clock at the store's precision (milliseconds), so a time
// read back compares equal to the one sent.
func (s *Service) now() time.Time { return s.opts.Now().UTC().Truncate(time.Millisecond) }

// Audit events.
const (
	eventProposed = "proposed"
	eventApproved = "approved"
	eventRejected = "rejected"
	eventExpired  = "expired"
	eventWritten  = "written"
	eventFailed   = "failed"
)

// audit writes the event's audit line and counts it. Never the texts.
func (s *Service) audit(ctx context.Context, event string, a *Action, outcome string) {
	s.events.WithLabelValues(event, a.Tool).Inc()
	attrs := []any{
		slog.String("event", event),
		slog.String("user_id", a.UserID),
		slog.Int64("class_id", a.ClassID),
		slog.String("tool", a.Tool),
		slog.String("action_id", a.ID),
		slog.String("argument_digest", a.Digest),
		slog.String("outcome", outcome),
	}
	if a.TokenID != "" {
		attrs = append(attrs, slog.String("token_id", a.TokenID))
	}
	if a.ClientID != "" {
		attrs = append(attrs, slog.String("client_id", a.ClientID))
	}
	s.opts.Audit.InfoContext(ctx, "write action", attrs...)
}

// ApprovalURL is the page where action id is approved.
func (s *Service) ApprovalURL(id string) string { return s.opts.BaseURL + PathPrefix + "/" + id }

// Propose implements Approvals.
func (s *Service) Propose(ctx context.Context, p Proposal) (*ActionState, error) {
	now := s.now()
	a := &Action{UserID: p.UserID, TokenID: p.TokenID, ClientID: p.ClientID, ClassID: p.ClassID,
		Tool: p.Tool, Arguments: p.Arguments, Digest: p.Digest, Preview: p.Preview,
		State: StatePending, CreatedAt: now, ExpiresAt: now.Add(s.opts.TTL)}
	id, err := s.opts.Store.Propose(ctx, a, s.opts.TTL, s.opts.MaxPending, now)
	if errors.Is(err, ErrTooManyPending) {
		return nil, &RefusedError{Message: fmt.Sprintf("You have %d proposals waiting for approval, the most allowed at once; nothing was proposed. Approve or reject them at their links, or wait: each lapses %s after it was proposed. Then propose this again.", s.opts.MaxPending, minutes(s.opts.TTL))}
	}
	if err != nil {
		s.opts.Logger.ErrorContext(ctx, "approval: storing a proposal failed", "tool", p.Tool, "error", err.Error())
		return nil, &RefusedError{Message: "The proposal could not be stored just now; nothing was written. Try again.", Fault: true}
	}
	a.ID = id
	s.audit(ctx, eventProposed, a, "pending")
	rs, err := s.sealState(requestState{ActionID: id, UserID: p.UserID, Tool: p.Tool, Expires: a.ExpiresAt.Unix()})
	if err != nil {
		return nil, err
	}
	st := s.stateOf(a)
	st.Preview = &a.Preview
	st.RequestState = rs
	return st, nil
}

// stateOf is a as the tools report it.
func (s *Service) stateOf(a *Action) *ActionState {
	st := &ActionState{ActionID: a.ID, Tool: a.Tool, State: a.State, ExpiresAt: a.ExpiresAt, RowID: a.RowID}
	if a.State == StatePending {
		st.ApprovalURL = s.ApprovalURL(a.ID)
	}
	if a.State == StateFailed {
		st.Failure = failureText(a.Failure, a.FailureDetail)
	}
	return st
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// get reads userID's action id, auditing an expiry this read caused.
func (s *Service) get(ctx context.Context, id, userID string) (*Action, error) {
	if !uuidPattern.MatchString(id) {
		return nil, nil
	}
	now := s.now()
	a, err := s.opts.Store.Get(ctx, id, userID, now)
	if err != nil || a == nil {
		return a, err
	}
	if a.State == StateExpired && a.DecidedAt != nil && a.DecidedAt.Equal(now) {
		s.audit(ctx, eventExpired, a, "expired")
	}
	return a, nil
}

// State implements Approvals.
func (s *Service) State(ctx context.Context, userID, actionID string) (*ActionState, error) {
	a, err := s.get(ctx, actionID, userID)
	if err != nil {
		s.opts.Logger.ErrorContext(ctx, "approval: reading an action failed", "error", err.Error())
		return nil, &RefusedError{Message: "The action's state could not be read just now. Try again.", Fault: true}
	}
	if a == nil {
		return nil, ErrNoAction
	}
	return s.stateOf(a), nil
}

// requestState is what the 2026-07-28 requestState seals: the action, the
// principal it was proposed for, the tool and when it lapses.
type requestState struct {
	ActionID string `json:"a"`
	UserID   string `json:"u"`
	Tool     string `json:"t"`
	Expires  int64  `json:"e"`
}

const requestStateAAD = "mcp-approval-request-state"

func (s *Service) sealState(rs requestState) (string, error) {
	raw, err := json.Marshal(rs)
	if err != nil {
		return "", err
	}
	return s.keys.state.Seal(raw, requestStateAAD)
}

// requestStateGrace is how long after the action's own expiry its sealed
// state is still answered (with "expired"), for a slow client's retry.
const requestStateGrace = time.Hour

// Resume implements Approvals.
func (s *Service) Resume(ctx context.Context, userID, tool, sealed string) (*ActionState, error) {
	if len(sealed) > 1024 {
		return nil, ErrNoAction
	}
	raw, err := s.keys.state.Open(sealed, requestStateAAD)
	if err != nil {
		return nil, ErrNoAction
	}
	var rs requestState
	if json.Unmarshal(raw, &rs) != nil || rs.UserID != userID || rs.Tool != tool ||
		s.opts.Now().After(time.Unix(rs.Expires, 0).Add(requestStateGrace)) {
		return nil, ErrNoAction
	}
	st, err := s.State(ctx, userID, rs.ActionID)
	if err == nil && st.Tool != tool {
		return nil, ErrNoAction
	}
	return st, err
}
