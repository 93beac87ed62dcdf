package mcpserver

// The write tools' part of the transport (docs/writes.md): the caller is
// handed to the tools (tools.WithCaller), a refused write is a tool
// execution error the model can act on, and a new proposal reaches a
// 2026-07-28 client that supports URL-mode elicitation as an
// input_required result asking it to open the approval page, with a
// sealed requestState whose retry reports the action's state. Only
// registries with write tools (GATEWAY_WRITE_TOOLS=on) get here.

import (
	"context"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// approvalInputKey names the one input request of an input_required
// result (its keys are the server's to choose).
const approvalInputKey = "approval"

// isWriteTool reports whether name is a write tool of the catalogue.
func (s *Server) isWriteTool(name string) bool {
	t, ok := s.tools.Lookup(name)
	return ok && t.Write
}

// callWriteTool runs a write tool for cl. At 2026-07-28 a call carrying
// requestState is the retry of an input_required answer: it reports the
// sealed action's state instead of proposing again.
func (s *Server) callWriteTool(ctx context.Context, cl *caller, name string, params any, args *jsjson.Object) (any, error) {
	p := cl.principal
	ctx = tools.WithCaller(ctx, tools.Caller{UserID: p.UserID, TokenID: p.TokenID, ClientID: p.ClientID})
	if cl.version == versionModern {
		if po, ok := params.(*jsjson.Object); ok && po != nil {
			if rs, ok := po.String("requestState"); ok {
				return s.tools.Resume(ctx, p.Scopes, name, rs)
			}
		}
	}
	return s.callTool(ctx, cl.db, p.Scopes, name, args)
}

// declaresURLElicitation reports whether a 2026-07-28 request declares
// URL-mode elicitation (capabilities.elicitation.url).
func declaresURLElicitation(cl *caller) bool {
	if cl.version != versionModern || cl.clientCapabilities == nil {
		return false
	}
	el, _ := cl.clientCapabilities.Object("elicitation")
	_, ok := el.Object("url")
	return ok
}

// inputRequiredResult is the 2026-07-28 InputRequiredResult for a new
// proposal: one URL-mode elicitation that asks the person to open the
// approval page, and the sealed requestState the retry carries.
func inputRequiredResult(pr *tools.Proposed) ([]byte, error) {
	req := jsjson.NewObject(2).
		Set("method", "elicitation/create").
		Set("params", jsjson.NewObject(3).
			Set("mode", "url").
			Set("message", pr.Message+". Nothing is written until you approve it on this page.").
			Set("url", pr.URL))
	body, err := jsjson.Marshal(jsjson.NewObject(3).
		Set("resultType", "input_required").
		Set("inputRequests", jsjson.NewObject(1).Set(approvalInputKey, req)).
		Set("requestState", pr.RequestState))
	if err != nil {
		return nil, err
	}
	// The server's identity last, as on every result of this revision.
	dst := append(body[:len(body)-1:len(body)-1], `,"_meta":`...)
	dst = append(dst, serverInfoMeta...)
	return append(dst, '}'), nil
}

// useWriteInstructions switches server/discover to writeInstructions;
// initialize's instructions are set with the skills'
// (useSkillInstructions).
func (s *Server) useWriteInstructions() error {
	var err error
	if s.discoverResult, err = discoverResult(false, writeInstructions); err != nil {
		return err
	}
	s.apps.discover, err = discoverResult(true, writeInstructions)
	return err
}

// withInstructions adds "instructions" as the last member of an
// initialize result.
func withInstructions(body []byte, text string) []byte {
	dst := append([]byte(nil), body[:len(body)-1]...)
	dst = append(dst, `,"instructions":`...)
	dst = jsjson.AppendString(dst, text)
	return append(dst, '}')
}
