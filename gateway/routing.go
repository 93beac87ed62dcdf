package gateway

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"
)

// FunctionsPrefix is where Supabase serves Edge Functions, and where the
// gateway mounts every Function.
const FunctionsPrefix = "/functions/v1"

// Function is one Edge Function replacement. Register adds its routes to g,
// whose prefix is /functions/v1/<Slug>; it typically registers
// g.Any("", h) and g.Any("/*", h) because the edge runtime hands every
// method and sub-path of a function to that function.
type Function struct {
	// Slug is the function's name in URLs, e.g. "mcp-server".
	Slug string
	// Register adds the function's routes. It is called exactly once.
	Register func(g *echo.Group)
	// Unrouted, when set, answers requests for the function whose method
	// Echo's routes never match (QUERY, FOO …; see routedMethods), which
	// Echo would otherwise answer itself. The edge runtime hands every
	// method to the function, so a function that has its own answer to
	// them (mcp-server's and mcp-tokens' 405) sets this.
	Unrouted echo.HandlerFunc
}

// routedMethods are the methods Echo's Any registers; a request with any
// other method never reaches a route.
var routedMethods = map[string]bool{
	http.MethodConnect: true, http.MethodDelete: true, http.MethodGet: true, http.MethodHead: true,
	http.MethodOptions: true, http.MethodPatch: true, http.MethodPost: true, echo.PROPFIND: true,
	http.MethodPut: true, http.MethodTrace: true, echo.REPORT: true,
}

// serveUnrouted hands a request whose method Echo does not route to the
// Unrouted handler of the function its path names, before Echo's router
// and middleware, in a pooled context as Echo would: as an Echo Pre
// middleware it cost every request two closures.
func (s *Server) serveUnrouted(w http.ResponseWriter, r *http.Request) bool {
	if routedMethods[r.Method] {
		return false
	}
	info, _ := r.Context().Value(requestIDKey{}).(*requestInfo)
	h := s.unrouted[info.function]
	if h == nil {
		return false
	}
	c := s.echo.AcquireContext()
	defer s.echo.ReleaseContext(c)
	c.Reset(r, w)
	if err := h(c); err != nil {
		s.echo.HTTPErrorHandler(err, c)
	}
	return true
}

// slugPattern is what Supabase accepts as a function name.
var slugPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// reservedSlugs would collide with the gateway's own paths when a function
// is reached without the /functions/v1 prefix.
var reservedSlugs = map[string]bool{
	"functions": true, "healthz": true, "readyz": true, "_internal": true, "metrics": true,
}

func validateFunctions(fns []Function) error {
	seen := make(map[string]bool, len(fns))
	for i, f := range fns {
		switch {
		case !slugPattern.MatchString(f.Slug):
			return fmt.Errorf("gateway: function %d: slug %q must match %s", i, f.Slug, slugPattern)
		case reservedSlugs[f.Slug]:
			return fmt.Errorf("gateway: function %d: slug %q is reserved for the gateway's own paths", i, f.Slug)
		case seen[f.Slug]:
			return fmt.Errorf("gateway: function %d: slug %q is registered twice", i, f.Slug)
		case f.Register == nil:
			return fmt.Errorf("gateway: function %q: Register is nil", f.Slug)
		}
		seen[f.Slug] = true
	}
	return nil
}

// splitFunctionPath returns the slug addressed by path and whether path used
// the /functions/v1 prefix. "/functions/v1/x/y" and "/x/y" both address "x".
func splitFunctionPath(path string) (slug string, prefixed bool) {
	rest, prefixed := strings.CutPrefix(path, FunctionsPrefix+"/")
	if !prefixed {
		if path == FunctionsPrefix {
			return "", true
		}
		rest = strings.TrimPrefix(path, "/")
	}
	slug, _, _ = strings.Cut(rest, "/")
	return slug, prefixed
}

// requestInfoOf returns what prepare recorded for the request, or, for a
// context it did not see, the request's path and no function.
func requestInfoOf(c echo.Context) *requestInfo {
	if info, ok := c.Request().Context().Value(requestIDKey{}).(*requestInfo); ok && info.originalPath != "" {
		return info
	}
	return &requestInfo{id: RequestID(c.Request().Context()), originalPath: c.Request().URL.Path}
}

func originalPath(c echo.Context) string { return requestInfoOf(c).originalPath }

func functionSlug(c echo.Context) string { return requestInfoOf(c).function }

// unknownFunction answers any path no route matched. With a fallback
// configured, requests that address a function (prefixed or not) are handed
// to it unchanged; otherwise, and for paths that name no function or one of
// the gateway's own paths, the answer is the platform's 404.
func (s *Server) unknownFunction(c echo.Context) error {
	slug, _ := splitFunctionPath(originalPath(c))
	if s.opts.Fallback == nil || slug == "" || reservedSlugs[slug] {
		return errFunctionNotFound
	}
	s.opts.Fallback.ServeHTTP(c.Response(), c.Request())
	return nil
}
