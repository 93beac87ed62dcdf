package approval

// Why an approved action wrote nothing, as mcp_pending_action_approve and
// its write functions record it. Each has one fixed text for the person
// and the model; what the database said goes to the log only.
const (
	failTokenRevoked     = "token_revoked"
	failRequestClosed    = "request_closed"
	failStatusChanged    = "status_changed"
	failAssigneeChanged  = "assignee_changed"
	failTargetGone       = "target_gone"
	failThreadDraft      = "thread_draft"
	failRegradeClosed    = "regrade_closed"
	failRegradeDecided   = "regrade_decided"
	failReviewChanged    = "review_changed"
	failNotAllowed       = "not_allowed"
	failRefused          = "refused"
	failProposalOutdated = "proposal_outdated"
	failOutcomeUnknown   = "outcome_unknown"
)

// failureText is the fixed text for an action that failed with code; the
// detail's values come from the database's own enumerations (a help
// request's status), never from free text.
func failureText(code string, detail map[string]string) string {
	switch code {
	case failTokenRevoked:
		return "The assistant's access was revoked after it proposed this, so nothing was written."
	case failRequestClosed:
		return "The help request is now " + statusWords(detail["status"]) + ", and its chat takes no more replies, so nothing was written."
	case failStatusChanged:
		return "The help request changed since the proposal: it was " + statusWords(detail["was"]) + " and is now " + statusWords(detail["status"]) + ", so nothing was changed."
	case failAssigneeChanged:
		return "Someone else took the help request since the proposal, so nothing was changed."
	case failTargetGone:
		return "What this replies to or changes is no longer there, or no longer visible to you, so nothing was written."
	case failThreadDraft:
		return "The discussion thread is a draft again, so nothing was written."
	case failRegradeClosed:
		return "The regrade request is now " + regradeStatusWords(detail["status"]) + ", and its conversation takes no more comments, so nothing was written."
	case failRegradeDecided:
		return "The regrade request changed since the proposal: it was " + regradeStatusWords(detail["was"]) + " and is now " + regradeStatusWords(detail["status"]) + ", so it was not decided again and nothing was written."
	case failReviewChanged:
		if detail["released"] == "true" {
			return "The review was released to the students since the proposal, so they would see the comment at once; nothing was written."
		}
		return "The review was unreleased since the proposal, so the students would no longer see the comment at once; nothing was written."
	case failNotAllowed:
		return "Pawtograder's permissions do not allow this change for your account, so nothing was written."
	case failRefused:
		return "Pawtograder's checks refused this change, so nothing was written."
	case failProposalOutdated:
		return "This proposal was made by an earlier version of the gateway, so nothing was written. Ask your assistant to propose it again."
	case failOutcomeUnknown:
		return "An earlier version of the gateway did not record whether this approved change was written. Check Pawtograder before proposing it again."
	}
	return "The change could not be made, so nothing was written."
}

// statuses are help_request_status's values as words.
var statuses = map[string]string{"open": "open", "in_progress": "in progress", "resolved": "resolved", "closed": "closed"}

func statusWords(s string) string {
	if w, ok := statuses[s]; ok {
		return w
	}
	return "in another state"
}

// regradeStatusWords names regrade_status's values.
func regradeStatusWords(s string) string {
	switch s {
	case "opened", "resolved", "escalated", "closed":
		return s
	case "draft":
		return "a draft the student has not sent"
	}
	return "in another state"
}
