package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// The fake backend stands in for PostgREST and Supabase Auth with canned
// answers shaped like the local stack's for the seed, returned at once, so
// a load run against it measures the gateway's own cost rather than the
// database's (scripts/bench runs the 401, initialize, tools/list and
// get_assignment rows against it). It answers only what those requests
// read: the token's look-up (the original's revocation look-up and staff
// gate, or the gateway's one call of both), the coalesced
// last_used_at write, one assignment, and Auth's user and JWKS endpoints.

// fakeUser is Alice of the seed (instructor, class 1).
const fakeUser = "10000000-0000-4000-8000-000000000001"

var (
	fakeRoles      = []byte(`[{"class_id":1,"role":"instructor"}]`)
	fakeLookup     = []byte(`{"revoked": false, "staff": true}`)
	fakeAssignment = []byte(`{"id":1,"title":"Assignment 1: Hello World","slug":"hw1","description":"Write a program that prints hello, world.","handout_url":"https://example.edu/hw1","due_date":"2026-09-15T23:59:00+00:00","release_date":"2026-09-01T00:00:00+00:00","total_points":100,"has_autograder":true,"class_id":1}`)
	fakeAuthUser   = []byte(`{"id":"` + fakeUser + `","aud":"authenticated","role":"authenticated","email":"alice@example.edu","app_metadata":{"provider":"email"},"user_metadata":{}}`)
)

// fakeBackend answers PostgREST (/rest/v1/…) and Auth (/auth/v1/…).
func fakeBackend() http.Handler {
	json := func(w http.ResponseWriter, status int, body []byte) {
		h := w.Header()
		h["Content-Type"] = []string{"application/json; charset=utf-8"}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/rest/v1/rpc/mcp_activity_record" { // the activity record's batches: how many rows
			body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
			json(w, http.StatusOK, []byte(strconv.Itoa(bytes.Count(body, []byte(`"call_id"`)))))
			return
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		switch r.URL.Path {
		case "/rest/v1/revoked_token_ids":
			json(w, http.StatusOK, []byte(`[]`))
		case "/rest/v1/user_roles": // the original's role look-up
			json(w, http.StatusOK, fakeRoles)
		case "/rest/v1/rpc/mcp_auth_lookup": // the gateway's two look-ups in one
			json(w, http.StatusOK, fakeLookup)
		case "/rest/v1/assignments":
			if strings.Contains(r.Header.Get("Accept"), "vnd.pgrst.object") {
				json(w, http.StatusOK, fakeAssignment)
			} else {
				json(w, http.StatusOK, []byte("["+string(fakeAssignment)+"]"))
			}
		case "/rest/v1/api_tokens":
			w.WriteHeader(http.StatusNoContent)
		case "/rest/v1/", "/rest/v1":
			json(w, http.StatusOK, []byte(`{}`))
		case "/auth/v1/user":
			json(w, http.StatusOK, fakeAuthUser)
		case "/auth/v1/.well-known/jwks.json":
			json(w, http.StatusOK, []byte(`{"keys":[]}`))
		default:
			json(w, http.StatusNotFound, []byte(`{"code":"PGRST205","details":null,"hint":null,"message":"not served by the fake backend"}`))
		}
	})
}

// fakeSettings are the gateway settings that go with the fake backend:
// fresh secrets and an mcp_ token for fakeUser. The service-role key is
// not among them (only the authentication layer names it; see
// gateway/mcpauth's imports test): the fake backend checks no key, and
// scripts/bench sets any non-empty value.
func fakeSettings(url string) (map[string]string, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	pub, _ := k.PublicKey.Bytes()
	d, _ := k.Bytes()
	enc := base64.RawURLEncoding.EncodeToString
	jwk := `{"kid":"fake","kty":"EC","crv":"P-256","x":"` + enc(pub[1:33]) + `","y":"` + enc(pub[33:]) + `","d":"` + enc(d) + `"}`
	var secret [24]byte
	_, _ = rand.Read(secret[:])
	mcpSecret := hex.EncodeToString(secret[:])
	token, err := mcpauth.MintAPIToken(mcpSecret, fakeUser, []string{mcpauth.ScopeMCPRead}, "22222222-3333-4444-8555-666666666666", 30, time.Now())
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"SUPABASE_URL":      url,
		"SUPABASE_ANON_KEY": "fake-anon-key",
		"MCP_JWT_SECRET":    mcpSecret,
		"JWT_SECRET":        jwk,
		"DEMO_TOKEN":        token,
	}, nil
}

// fakeBackendCommand is `loadtest fakebackend`: serve until SIGTERM/SIGINT
// (or -max-time), after writing the settings to -env-file.
func fakeBackendCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakebackend", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to serve on (loopback only)")
	envFile := fs.String("env-file", "", "where to write the gateway's settings (KEY='value' lines, sourceable by bash)")
	maxTime := fs.Duration("max-time", time.Hour, "stop serving after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil || (host != "127.0.0.1" && host != "localhost" && host != "::1") {
		return errors.New("-listen must be a loopback address")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	settings, err := fakeSettings("http://" + ln.Addr().String())
	if err != nil {
		return err
	}
	if *envFile != "" {
		var b strings.Builder
		for _, k := range []string{"SUPABASE_URL", "SUPABASE_ANON_KEY", "MCP_JWT_SECRET", "JWT_SECRET", "DEMO_TOKEN"} {
			fmt.Fprintf(&b, "%s='%s'\n", k, settings[k]) // no value contains a single quote
		}
		if err := os.WriteFile(*envFile, []byte(b.String()), 0o600); err != nil {
			return err
		}
	}
	srv := &http.Server{Handler: fakeBackend(), ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, *maxTime)
	defer cancel()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Fprintf(stderr, "loadtest: fake backend on %s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
