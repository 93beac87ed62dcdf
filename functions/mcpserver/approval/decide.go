package approval

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// maxFormBytes bounds the decision form.
const maxFormBytes = 4 << 10

// readBackTimeout bounds the look at an action's state after its
// decision's answer was lost.
const readBackTimeout = 5 * time.Second

// decide takes the Approve or Reject of the person signed in for id.
func (s *Service) decide(c echo.Context, id string, st *cookieState, g *grant) error {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return s.page(c, http.StatusBadRequest, "Something went wrong", "The form could not be read; nothing was decided.", "Open the approval link again.")
	}
	if !s.keys.csrf.Verify("approve|"+id+"|"+g.UserID, r.PostForm.Get("csrf_token")) {
		return s.page(c, http.StatusForbidden, "This request was not sent from the approval page", "Pawtograder refused it to protect your account; nothing was decided.", "Open the approval link again to decide.")
	}
	approve := false
	switch r.PostForm.Get("decision") {
	case "approve":
		approve = true
	case "reject":
	default:
		return s.page(c, http.StatusBadRequest, "Something went wrong", "Choose Approve or Reject.", "Open the approval link again.")
	}
	// The decision and its write run to their own deadline: a closed tab
	// must not cancel a write half-way.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), s.opts.WriteTimeout)
	defer cancel()
	a, err := s.get(ctx, id, g.UserID)
	if err != nil {
		s.opts.Logger.ErrorContext(ctx, "approval: reading an action failed", "error", err.Error())
		return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "The proposal could not be read just now, so nothing was decided or written.", "Open the approval link again in a few minutes.")
	}
	if a == nil {
		return s.notYours(c, st, g)
	}
	// The grant is kept: another tab of this browser that sends a
	// decision for the same link is then told what was decided.
	if a.State != StatePending {
		return s.statePage(c, a)
	}
	if !approve {
		return s.reject(ctx, c, a)
	}
	return s.approve(ctx, c, a)
}

// reject records the rejection.
func (s *Service) reject(ctx context.Context, c echo.Context, a *Action) error {
	outcome, err := s.opts.Store.Reject(ctx, a.ID, a.UserID, s.now())
	if err != nil {
		s.opts.Logger.ErrorContext(ctx, "approval: recording a rejection failed", "action_id", a.ID, "error", err.Error())
		return s.afterLostAnswer(c, a, rolledBack(err))
	}
	switch outcome {
	case OutcomeRejected:
		s.audit(ctx, eventRejected, a, "rejected")
		return s.page(c, http.StatusOK, "Rejected", "Nothing was written.", "You can close this page and tell your assistant.")
	case OutcomeExpired:
		s.audit(ctx, eventExpired, a, "expired")
		a.State = StateExpired
		return s.statePage(c, a)
	}
	return s.readAndShow(c, a)
}

// approve makes the approved write: decision, write and record are one
// transaction in the database, run as the approving person.
func (s *Service) approve(ctx context.Context, c echo.Context, a *Action) error {
	as, err := s.opts.Approver(ctx, a.UserID, a.ID)
	if err != nil {
		s.opts.Logger.ErrorContext(ctx, "approval: no client for the approval", "action_id", a.ID, "error", err.Error())
		return s.page(c, http.StatusInternalServerError, "Pawtograder is unavailable", "The gateway could not act as you just now, so nothing was decided or written.", "Open the approval link again in a few minutes.")
	}
	out, err := s.opts.Store.Approve(ctx, as, a.ID, s.now())
	if err != nil {
		s.opts.Logger.ErrorContext(ctx, "approval: the approval did not answer", "action_id", a.ID, "error", err.Error())
		return s.afterLostAnswer(c, a, rolledBack(err))
	}
	switch out.Outcome {
	case OutcomeApproved:
		a.State, a.RowID = StateApproved, out.RowID
		s.audit(ctx, eventApproved, a, "approved")
		s.audit(ctx, eventWritten, a, "written")
		return s.page(c, http.StatusOK, "Approved and written", hiddentext.Mark(a.Preview.Action)+": done ("+writtenRow(a)+").", "You can close this page and tell your assistant.")
	case OutcomeFailed:
		a.State, a.Failure, a.FailureDetail = StateFailed, out.Failure, out.Detail
		if out.SQLState != "" {
			s.opts.Logger.WarnContext(ctx, "approval: the database refused the approved write", "action_id", a.ID, "tool", a.Tool, "sqlstate", out.SQLState, "error", out.Error)
		}
		s.audit(ctx, eventFailed, a, out.Failure)
		if out.Failure == failTokenRevoked {
			return s.page(c, http.StatusForbidden, "The assistant's access was revoked", failureText(out.Failure, out.Detail), "Reconnect the assistant if you still want it.")
		}
		return s.page(c, http.StatusOK, "Approved, but not written", failureText(out.Failure, out.Detail), "Tell your assistant; it can propose it again if it still applies.")
	case OutcomeExpired:
		a.State = StateExpired
		s.audit(ctx, eventExpired, a, "expired")
		return s.statePage(c, a)
	}
	return s.readAndShow(c, a)
}

// readAndShow shows the action's state as the store now has it (another
// tab or replica decided it first).
func (s *Service) readAndShow(c echo.Context, a *Action) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), readBackTimeout)
	defer cancel()
	b, err := s.get(ctx, a.ID, a.UserID)
	if err != nil || b == nil {
		return s.unknownOutcome(c)
	}
	return s.statePage(c, b)
}

// afterLostAnswer answers a decision whose answer did not come back: it
// reads the action's state again and says what is known. A decision that
// committed shows as made. One still pending was undone when the database
// answered with an error (undone); otherwise it may still be running
// (PostgREST runs a statement on after its client hangs up), so the page
// says only that it is not confirmed. An approval never writes twice.
func (s *Service) afterLostAnswer(c echo.Context, a *Action, undone bool) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), readBackTimeout)
	defer cancel()
	b, err := s.get(ctx, a.ID, a.UserID)
	if err != nil || b == nil {
		if err != nil {
			s.opts.Logger.ErrorContext(ctx, "approval: reading an action back failed", "action_id", a.ID, "error", err.Error())
		}
		return s.unknownOutcome(c)
	}
	if b.State == StatePending && undone {
		return s.page(c, http.StatusServiceUnavailable, "Not done yet",
			"Pawtograder could not complete your decision in time and undid it: it is not recorded, and nothing has been written.",
			"Open the approval link again to decide once more. An approval writes at most once, however often it is sent.")
	}
	if b.State == StatePending {
		return s.page(c, http.StatusServiceUnavailable, "Not confirmed yet",
			"Pawtograder did not confirm your decision in time. It is not recorded as of now, but it may still complete in the next moments.",
			"Open the approval link again in a minute: it shows whether it was written, and lets you decide again if it was not. An approval writes at most once, however often it is sent.")
	}
	switch b.State {
	case StateApproved:
		s.audit(ctx, eventWritten, b, "written_confirmed_late")
	case StateFailed:
		s.audit(ctx, eventFailed, b, b.Failure)
	case StateRejected:
		s.audit(ctx, eventRejected, b, "rejected_confirmed_late")
	}
	return s.statePage(c, b)
}

// unknownOutcome is the answer when neither the decision nor the state
// could be read: the page cannot tell, and says so.
func (s *Service) unknownOutcome(c echo.Context) error {
	return s.page(c, http.StatusServiceUnavailable, "Pawtograder did not answer",
		"This page cannot tell whether your decision was recorded.",
		"Open the approval link again in a minute: it shows what happened. An approval writes at most once, however often it is sent.")
}

// rolledBack reports whether err is the database's own refusal of the
// statement, which PostgREST answers only after rolling its transaction
// back (a SQLSTATE, not a transport failure or a proxy's error page).
func rolledBack(err error) bool {
	var e *postgrest.Error
	return errors.As(err, &e) && e.Status > 0 && len(e.Code) == 5 && !strings.HasPrefix(e.Code, "PGRST")
}
