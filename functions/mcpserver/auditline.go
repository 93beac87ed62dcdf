package mcpserver

import (
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/jsonline"
)

// AuditLog writes audit lines (docs/audit.md) without slog: byte for byte
// what Options.Audit writes through slog's JSONHandler (auditline_test.go
// compares the two), at a fraction of the cost — slog's share was about a
// twentieth of a tool call's CPU (docs/performance.md). A line with a
// value that needs escaping is logged through Options.Audit instead. Each
// line is one write, unbuffered, as through slog: an audit line is not
// held back.
type AuditLog struct {
	w     io.Writer
	attrs []byte // the audit logger's own attributes, rendered
}

// NewAuditLog returns an AuditLog writing to w lines with attrs (plain
// strings, the attributes the audit logger was given with With) after msg.
func NewAuditLog(w io.Writer, attrs ...slog.Attr) (*AuditLog, error) {
	rendered, err := jsonline.Attrs(attrs...)
	if err != nil {
		return nil, errors.New("mcpserver: audit log attributes must be plain strings")
	}
	return &AuditLog{w: w, attrs: rendered}, nil
}

// auditRecord is what one audit line says; empty optional fields are left
// out.
type auditRecord struct {
	requestID, tokenID, clientID, credential, userID, tool, classID, outcome string
	durationMS, upstream                                                     int64
}

// attrs is the record as slog attributes, in the line's order.
func (r *auditRecord) attrs() []slog.Attr {
	attrs := make([]slog.Attr, 0, 9)
	if r.requestID != "" {
		attrs = append(attrs, slog.String("request_id", r.requestID))
	}
	switch {
	case r.tokenID != "":
		attrs = append(attrs, slog.String("token_id", r.tokenID))
	case r.clientID != "":
		attrs = append(attrs, slog.String("client_id", r.clientID))
	}
	if r.credential != "" {
		attrs = append(attrs, slog.String("credential", r.credential))
	}
	attrs = append(attrs, slog.String("user_id", r.userID), slog.String("tool", r.tool))
	if r.classID != "" {
		attrs = append(attrs, slog.String("class_id", r.classID))
	}
	return append(attrs,
		slog.String("outcome", r.outcome),
		slog.Int64("duration_ms", r.durationMS),
		slog.Int64("upstream_requests", r.upstream))
}

// write writes the line and reports true, or reports false without
// writing when a value needs escaping.
func (l *AuditLog) write(r *auditRecord) bool {
	for _, s := range [...]string{r.requestID, r.tokenID, r.clientID, r.credential, r.userID, r.tool, r.classID, r.outcome} {
		if !jsonline.Plain(s) {
			return false
		}
	}
	bp := jsonline.Buffer()
	b := jsonline.Head((*bp)[:0], time.Now(), slog.LevelInfo, auditMessage, l.attrs)
	if r.requestID != "" {
		b = jsonline.String(b, "request_id", r.requestID)
	}
	switch {
	case r.tokenID != "":
		b = jsonline.String(b, "token_id", r.tokenID)
	case r.clientID != "":
		b = jsonline.String(b, "client_id", r.clientID)
	}
	if r.credential != "" {
		b = jsonline.String(b, "credential", r.credential)
	}
	b = jsonline.String(b, "user_id", r.userID)
	b = jsonline.String(b, "tool", r.tool)
	if r.classID != "" {
		b = jsonline.String(b, "class_id", r.classID)
	}
	b = jsonline.String(b, "outcome", r.outcome)
	b = jsonline.Int(b, "duration_ms", r.durationMS)
	b = jsonline.Int(b, "upstream_requests", r.upstream)
	_, _ = l.w.Write(jsonline.End(b))
	jsonline.Release(bp, b)
	return true
}

// auditMessage is the audit line's msg, which log routing matches on.
const auditMessage = "tool call"
