package approval

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"
)

// cookieState is the sign-in cookie: sealed (AES-256-GCM, the cookie name
// as associated data), HttpOnly, SameSite=Lax (it must survive the
// redirect back from the provider), Secure on https. It holds the sign-in
// in progress and the approvals this browser has signed in for, each
// bound to its one action with its own expiry, so several approval tabs
// work side by side and none can decide another's action.
type cookieState struct {
	SignIn *signInState `json:"s,omitempty"`
	Grants []grant      `json:"g,omitempty"`
}

// signInState is a sign-in on its way through Supabase Auth: the PKCE
// verifier and the actions whose links started it. Tabs that start
// sign-ins side by side share one verifier (each authorize request sends
// its challenge), because the callback's code does not say which tab it
// belongs to: any of them redeems with it, and each callback takes the
// first action still waiting (ActionID, then Waiting in order).
type signInState struct {
	ActionID string   `json:"a"`
	Waiting  []string `json:"w,omitempty"`
	Verifier string   `json:"v"`
	Expires  int64    `json:"e"`
}

// maxWaiting bounds the other actions a sign-in waits for.
const maxWaiting = 3

// wait adds action id to the sign-in, once.
func (in *signInState) wait(id string) {
	if id == in.ActionID || slices.Contains(in.Waiting, id) {
		return
	}
	in.Waiting = append(in.Waiting, id)
	if len(in.Waiting) > maxWaiting {
		in.Waiting = in.Waiting[len(in.Waiting)-maxWaiting:]
	}
}

// next is the sign-in without its first action, or nil when none waits.
func (in *signInState) next() *signInState {
	if len(in.Waiting) == 0 {
		return nil
	}
	return &signInState{ActionID: in.Waiting[0], Waiting: in.Waiting[1:], Verifier: in.Verifier, Expires: in.Expires}
}

// grant says who signed in to decide ActionID, until Expires.
type grant struct {
	ActionID string `json:"a"`
	UserID   string `json:"u"`
	Email    string `json:"m,omitempty"`
	Expires  int64  `json:"e"`
}

// maxGrants bounds the approvals one cookie holds (about 200 bytes each).
const maxGrants = 8

// signInTTL bounds a sign-in from the link to the decision.
const signInTTL = 15 * time.Minute

func (s *Service) cookieName() string {
	if s.secure {
		return "__Secure-mcp_approval"
	}
	return "mcp_approval"
}

// readCookie returns the cookie's live entries: anything past its own
// expiry is dropped here, whatever the browser sent.
func (s *Service) readCookie(c echo.Context) *cookieState {
	st := &cookieState{}
	ck, err := c.Cookie(s.cookieName())
	if err != nil || ck.Value == "" || len(ck.Value) > 4096 {
		return st
	}
	raw, err := s.keys.cookie.Open(ck.Value, s.cookieName())
	if err != nil || json.Unmarshal(raw, st) != nil {
		return &cookieState{}
	}
	now := s.opts.Now().Unix()
	if st.SignIn != nil && (now >= st.SignIn.Expires || st.SignIn.ActionID == "" || st.SignIn.Verifier == "") {
		st.SignIn = nil
	}
	st.Grants = slices.DeleteFunc(st.Grants, func(g grant) bool {
		return now >= g.Expires || g.ActionID == "" || g.UserID == ""
	})
	return st
}

// writeCookie stores st, or removes the cookie when st holds nothing.
func (s *Service) writeCookie(c echo.Context, st *cookieState) error {
	expires := int64(0)
	if st.SignIn != nil {
		expires = st.SignIn.Expires
	}
	for _, g := range st.Grants {
		expires = max(expires, g.Expires)
	}
	if expires == 0 {
		c.SetCookie(&http.Cookie{Name: s.cookieName(), Value: "", Path: s.path, MaxAge: -1,
			HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
		return nil
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	v, err := s.keys.cookie.Seal(raw, s.cookieName())
	if err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: s.cookieName(), Value: v, Path: s.path,
		Expires: time.Unix(expires, 0), MaxAge: int(expires - s.opts.Now().Unix()),
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
	return nil
}

// grantFor is the live sign-in for action id, if any.
func (st *cookieState) grantFor(id string) *grant {
	for i := range st.Grants {
		if st.Grants[i].ActionID == id {
			return &st.Grants[i]
		}
	}
	return nil
}

// add keeps g, replacing an earlier grant for its action; past maxGrants
// the one expiring first goes.
func (st *cookieState) add(g grant) {
	st.drop(g.ActionID)
	st.Grants = append(st.Grants, g)
	if len(st.Grants) > maxGrants {
		slices.SortFunc(st.Grants, func(a, b grant) int { return int(b.Expires - a.Expires) })
		st.Grants = st.Grants[:maxGrants]
	}
}

// drop forgets the grant for action id.
func (st *cookieState) drop(id string) {
	st.Grants = slices.DeleteFunc(st.Grants, func(g grant) bool { return g.ActionID == id })
}

func account(g *grant) string {
	if g.Email != "" {
		return g.Email
	}
	return "user " + g.UserID
}
