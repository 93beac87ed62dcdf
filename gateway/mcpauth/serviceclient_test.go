package mcpauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestServiceClient: the service-role client sends the key as bearer and,
// unless the upstream is PostgREST itself, as apikey (as supabase-js
// does); it refuses to be built without a URL or a key.
func TestServiceClient(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		direct bool
		apikey string
	}{{false, "svc-key"}, {true, ""}} {
		c, err := ServiceClient(ServiceClientOptions{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: "svc-key", DirectUpstream: tc.direct, HTTPClient: srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.From("t").Select("x").Rows(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got.Get("Authorization") != "Bearer svc-key" || got.Get("apikey") != tc.apikey {
			t.Errorf("direct=%v: Authorization %q apikey %q", tc.direct, got.Get("Authorization"), got.Get("apikey"))
		}
	}
	for _, opts := range []ServiceClientOptions{{ServiceRoleKey: "k"}, {RestURL: srv.URL}, {RestURL: "ftp://x", ServiceRoleKey: "k"}} {
		if _, err := ServiceClient(opts); err == nil {
			t.Errorf("ServiceClient(%+v) built a client", opts)
		}
	}
}
