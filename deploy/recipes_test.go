package deploy

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
)

// The recipes' environments, exactly as the files state them, run the real
// binary: its OAuth metadata and sign-in redirect must name only the
// recipe's public URL. A recipe that leaves a Docker service name or a
// cluster address in what clients are sent to fails here.

// recipe is one deployment's environment, with the public URL it is
// configured from and the redirect URLs its Supabase Auth allows.
type recipe struct {
	name    string
	env     map[string]string
	public  string
	allowed []string
}

// placeholders are the example values that are not usable as they stand,
// replaced by test values: empty keys in env files, <…> in the Secret, and
// the Secret's elided JWK.
var placeholder = regexp.MustCompile(`^$|^<.*>$|…`)

// testValues are generated per run for the variables whose examples are
// placeholders.
func testValues(t *testing.T) map[string]string {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := jwk.FromRaw(priv)
	if err != nil {
		t.Fatal(err)
	}
	if err := key.Set(jwk.KeyIDKey, "recipe-test"); err != nil {
		t.Fatal(err)
	}
	jwkJSON, err := json.Marshal(key)
	if err != nil {
		t.Fatal(err)
	}
	random := func() string {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		return base64.StdEncoding.EncodeToString(b)
	}
	return map[string]string{
		"anon":    "test-anon-key",
		"service": "test-service-role-key",
		"mcp":     random(),
		"oauth":   random(),
		"jwk":     string(jwkJSON),
	}
}

// fill replaces a placeholder of name by its test value.
func fill(name, value string, vals map[string]string) string {
	if !placeholder.MatchString(value) {
		return value
	}
	switch {
	case strings.Contains(name, "ANON_KEY"):
		return vals["anon"]
	case strings.Contains(name, "SERVICE_ROLE_KEY"):
		return vals["service"]
	case name == "MCP_JWT_SECRET":
		return vals["mcp"]
	case strings.Contains(name, "OAUTH_SECRET"):
		return vals["oauth"]
	case name == "JWT_SECRET" || strings.Contains(name, "SIGNING_JWK"):
		return vals["jwk"]
	}
	return ""
}

// readEnvFile parses KEY=VALUE lines (comments and blank lines skipped).
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: not KEY=VALUE: %q", path, line)
		}
		out[k] = v
	}
	return out
}

var composeVar = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// interpolate expands Compose's ${VAR}, $VAR, ${VAR:-default},
// ${VAR-default}, ${VAR:?message} and ${VAR?message} from vars, as
// docker compose does with its --env-file.
func interpolate(t *testing.T, s string, vars map[string]string) string {
	t.Helper()
	return composeVar.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		g := composeVar.FindStringSubmatch(m)
		name, op, arg := g[1], g[2], g[3]
		if name == "" {
			name = g[4]
		}
		v, set := vars[name]
		switch op {
		case ":-":
			if v == "" {
				return arg
			}
		case "-":
			if !set {
				return arg
			}
		case ":?":
			if v == "" {
				t.Fatalf("compose refuses: %s: %s", name, arg)
			}
		case "?":
			if !set {
				t.Fatalf("compose refuses: %s: %s", name, arg)
			}
		}
		return v
	})
}

// composeRecipe is a compose file's service environment, interpolated from
// vars.
func composeRecipe(t *testing.T, file string, vars map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for k, v := range dig(t, load(t, file), "services", "mcp-gateway", "environment").(map[string]any) {
		env[k] = interpolate(t, fmt.Sprint(v), vars)
	}
	return env
}

var kubeVar = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// kubernetesRecipe is the Deployment's environment: the Secret
// (secret.example.yaml's stringData, via envFrom) and then the env list,
// whose $(VAR) references Kubernetes expands from what is defined before.
func kubernetesRecipe(t *testing.T, vals map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for k, v := range dig(t, load(t, "kubernetes/base/secret.example.yaml"), "stringData").(map[string]any) {
		env[k] = fill(k, fmt.Sprint(v), vals)
	}
	c := dig(t, load(t, "kubernetes/base/deployment.yaml"), "spec", "template", "spec", "containers", 0)
	for _, e := range dig(t, c, "env").([]any) {
		name, value := dig(t, e, "name").(string), fmt.Sprint(dig(t, e, "value"))
		env[name] = kubeVar.ReplaceAllStringFunc(value, func(m string) string {
			if m == "$$" {
				return "$"
			}
			ref := kubeVar.FindStringSubmatch(m)[1]
			if v, ok := env[ref]; ok {
				return v
			}
			return m // Kubernetes leaves an unknown reference as written
		})
	}
	return env
}

// recipes are the three deployments with their example values; with
// writes, each recipe's own switch for the write tools is turned on as its
// documentation says.
func recipes(t *testing.T, vals map[string]string, writes bool) []recipe {
	t.Helper()
	cliVars := readEnvFile(t, "supabase-cli/gateway.env.example")
	for k, v := range cliVars {
		cliVars[k] = fill(k, v, vals)
	}
	cliVars["SUPABASE_PROJECT_ID"] = "platform"

	// Self-hosted: the override's variables plus Supabase's own, as its
	// .env.example documents them, with a public host.
	selfVars := readEnvFile(t, "self-hosted/gateway.env.example")
	for k, v := range selfVars {
		selfVars[k] = fill(k, v, vals)
	}
	selfVars["SUPABASE_PUBLIC_URL"] = "https://supabase.example.edu"
	selfVars["ANON_KEY"] = vals["anon"]
	selfVars["SERVICE_ROLE_KEY"] = vals["service"]
	selfVars["ADDITIONAL_REDIRECT_URLS"] = "https://app.example.edu/auth/callback"

	kube := kubernetesRecipe(t, vals)
	if writes {
		cliVars["GATEWAY_WRITE_TOOLS"] = "on"
		selfVars["MCP_GATEWAY_WRITE_TOOLS"] = "on"
		kube["GATEWAY_WRITE_TOOLS"] = "on"
	}
	const kubePublic = "https://YOUR-PROJECT.supabase.co"
	return []recipe{
		{"supabase-cli", composeRecipe(t, "supabase-cli/compose.yaml", cliVars), cliVars["PUBLIC_URL"], cliAllowList(t, cliVars["PUBLIC_URL"])},
		{"self-hosted", composeRecipe(t, "self-hosted/docker-compose.override.yml", selfVars), selfVars["SUPABASE_PUBLIC_URL"],
			strings.Split(interpolate(t, fmt.Sprint(dig(t, load(t, "self-hosted/docker-compose.override.yml"), "services", "auth", "environment", "GOTRUE_URI_ALLOW_LIST")), selfVars), ",")},
		{"kubernetes", kube, kubePublic, documentedAllowList(t, "<GATEWAY_PUBLIC_URL>", kubePublic)},
	}
}

// cliAllowList runs allow-redirects.sh on an [auth] table shaped as the
// platform's supabase/config.toml has it and returns the resulting
// additional_redirect_urls.
func cliAllowList(t *testing.T, public string) []string {
	t.Helper()
	config := filepath.Join(t.TempDir(), "config.toml")
	const platform = "[auth]\nenabled = true\nsite_url = \"http://127.0.0.1:3000\"\nadditional_redirect_urls = [\"http://127.0.0.1:3000\"]\n\n[auth.email]\nenable_signup = true\n"
	if err := os.WriteFile(config, []byte(platform), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "supabase-cli/allow-redirects.sh", config, public)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("allow-redirects.sh: %v\n%s", err, out)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^additional_redirect_urls = \[(.*)\]$`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("allow-redirects.sh left no additional_redirect_urls:\n%s", data)
	}
	var urls []string
	if err := json.Unmarshal([]byte("["+string(m[1])+"]"), &urls); err != nil {
		t.Fatalf("additional_redirect_urls = [%s]: %v", m[1], err)
	}
	return urls
}

// documentedAllowList is what docs/deploy.md tells operators to add to
// Supabase Auth's redirect URLs, with placeholder standing for the public
// URL: where the recipe has no Supabase Auth of its own (Kubernetes beside
// a project elsewhere), the instructions are the allow-list.
func documentedAllowList(t *testing.T, placeholder, public string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(regexp.QuoteMeta(placeholder)+`/functions/v1/mcp-server/[a-z/]*callback`).FindAllString(string(doc), -1) {
		out = append(out, public+strings.TrimPrefix(m, placeholder))
	}
	return out
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// gatewayBinary builds ./gateway/cmd/gateway once per test process.
func gatewayBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "recipe-gateway")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "gateway")
		out, err := exec.Command("go", "build", "-o", binary, "../gateway/cmd/gateway").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// startRecipe runs the binary with env alone (the listeners moved to free
// loopback ports) and returns its base URL and what it has logged so far;
// the process stops with t.
func startRecipe(t *testing.T, env map[string]string) (base string, logged func() string) {
	t.Helper()
	env["GATEWAY_LISTEN_ADDR"] = "127.0.0.1:0"
	delete(env, "GATEWAY_METRICS_ADDR")
	cmd := exec.Command(gatewayBinary(t))
	cmd.Env = envList(env)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	var log strings.Builder
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "gateway listening" {
				addr <- line.Addr
			}
		}
		close(addr)
	}()
	logged = func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("the gateway exited before listening:\n%s", logged())
		}
		return "http://" + a, logged
	case <-time.After(30 * time.Second):
		t.Fatal("the gateway did not start listening within 30 s")
	}
	return "", logged
}

func envList(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// getJSON fetches a document from the local gateway.
func getJSON(t *testing.T, u string, into any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("GET %s: %v: %s", u, err, body)
	}
}

// urlsIn collects every absolute URL among the values of doc.
func urlsIn(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "http://") || strings.HasPrefix(x, "https://") {
			out = append(out, x)
		}
	case []any:
		for _, e := range x {
			out = append(out, urlsIn(e)...)
		}
	case map[string]any:
		for _, e := range x {
			out = append(out, urlsIn(e)...)
		}
	}
	return out
}

// TestRecipesAdvertisePublicURLs: each recipe's exact environment, as
// shipped and with its write tools turned on, runs the gateway's OAuth
// server, without reachable upstreams, and everything a client is given —
// the protected-resource metadata, the authorization server's metadata,
// the sign-in redirect to Supabase Auth and the callback inside it — names
// the recipe's public host only. The sign-in goes to the provider the
// recipe names (no warning about the default), and every callback Supabase
// Auth is asked to return to, the approval page's included, is in the
// recipe's redirect allow-list.
func TestRecipesAdvertisePublicURLs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the gateway binary")
	}
	vals := testValues(t)
	for _, writes := range []bool{false, true} {
		for _, r := range recipes(t, vals, writes) {
			t.Run(fmt.Sprintf("%s/writes=%v", r.name, writes), func(t *testing.T) { checkRecipe(t, r, writes) })
		}
	}
}

// checkRecipe runs one recipe's gateway and follows an OAuth client's
// discovery and authorization, and with writes an approval link, up to the
// redirect to Supabase Auth.
func checkRecipe(t *testing.T, r recipe, writes bool) {
	pub, err := url.Parse(r.public)
	if err != nil || pub.Host == "" {
		t.Fatalf("public URL %q", r.public)
	}
	if r.env["GATEWAY_OAUTH_SECRET"] == "" {
		t.Fatalf("the recipe does not pass GATEWAY_OAUTH_SECRET: %v", envList(r.env))
	}
	base, logged := startRecipe(t, r.env)
	if strings.Contains(logged(), "GATEWAY_OAUTH_PROVIDERS") {
		t.Errorf("the recipe leaves GATEWAY_OAUTH_PROVIDERS at its default:\n%s", logged())
	}
	provider := r.env["GATEWAY_OAUTH_PROVIDERS"]
	if provider == "" || strings.Contains(provider, ",") {
		t.Fatalf("GATEWAY_OAUTH_PROVIDERS = %q, want the one provider the recipe names", provider)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	checkHosts := func(what string, urls []string) {
		t.Helper()
		if len(urls) == 0 {
			t.Errorf("%s names no URL", what)
		}
		for _, s := range urls {
			if u, err := url.Parse(s); err != nil || u.Host != pub.Host {
				t.Errorf("%s names %s, not on the public host %s", what, s, pub.Host)
			}
		}
	}
	// signIn checks a redirect to Supabase Auth's sign-in: on the
	// public host, with the recipe's provider, returning to an
	// allowed callback.
	signIn := func(what string, resp *http.Response) {
		t.Helper()
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		loc, err := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode/100 != 3 || err != nil {
			t.Fatalf("%s: %d %q %s", what, resp.StatusCode, resp.Header.Get("Location"), body)
		}
		if loc.Host != pub.Host || loc.Path != pub.Path+"/auth/v1/authorize" || loc.Query().Get("provider") != provider {
			t.Errorf("%s: sign-in redirect %s, want %s/auth/v1/authorize?provider=%s…", what, loc, r.public, provider)
		}
		back := loc.Query().Get("redirect_to")
		checkHosts(what+": the sign-in redirect's redirect_to", []string{back})
		if !slices.Contains(r.allowed, back) {
			t.Errorf("%s: Supabase Auth is asked to return to %s, which the recipe's redirect allow-list %q lacks", what, back, r.allowed)
		}
	}
	local := func(public string) string {
		if !strings.HasPrefix(public, r.public) {
			t.Fatalf("%s is not under the public URL %s", public, r.public)
		}
		return base + strings.TrimPrefix(public, r.public)
	}

	var prm map[string]any
	getJSON(t, base+"/functions/v1/mcp-server/.well-known/oauth-protected-resource", &prm)
	checkHosts("protected-resource metadata", urlsIn(prm))
	servers, _ := prm["authorization_servers"].([]any)
	if len(servers) != 1 {
		t.Fatalf("authorization_servers = %v", prm["authorization_servers"])
	}
	issuer := servers[0].(string)
	if want := r.public + "/functions/v1/mcp-server/oauth"; issuer != want {
		t.Errorf("authorization server %s, want the gateway's own, %s", issuer, want)
	}

	var asm map[string]any
	getJSON(t, local(issuer)+"/.well-known/oauth-authorization-server", &asm)
	checkHosts("authorization-server metadata", urlsIn(asm))

	// Dynamic client registration, then an authorization with PKCE.
	reg, err := http.Post(local(asm["registration_endpoint"].(string)), "application/json", strings.NewReader(
		`{"client_name":"Recipe test","redirect_uris":["http://127.0.0.1:7777/callback"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"response_types":["code"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var client struct {
		ClientID string `json:"client_id"`
	}
	regBody, _ := io.ReadAll(reg.Body)
	reg.Body.Close()
	if reg.StatusCode != 201 || json.Unmarshal(regBody, &client) != nil || client.ClientID == "" {
		t.Fatalf("registration: %d %s", reg.StatusCode, regBody)
	}
	verifier := make([]byte, 32)
	_, _ = rand.Read(verifier)
	sum := sha256.Sum256([]byte(hex.EncodeToString(verifier)))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {client.ClientID},
		"redirect_uri":          {"http://127.0.0.1:7777/callback"},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"state":                 {"recipe"},
		"scope":                 {"mcp:read"},
		"resource":              {r.public + "/functions/v1/mcp-server"},
	}
	resp, err := noFollow.Get(local(asm["authorization_endpoint"].(string)) + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	signIn("authorize", resp)

	// An approval link, as a write tool hands it out: its sign-in
	// needs no upstream.
	resp, err = noFollow.Get(base + "/functions/v1/mcp-server/approve/0b9f3c1e-6a53-4c1e-9d6b-2a7c5e8f1d20")
	if err != nil {
		t.Fatal(err)
	}
	if writes {
		signIn("approval", resp)
	} else {
		resp.Body.Close()
		if resp.StatusCode/100 == 3 {
			t.Errorf("approval link with the write tools off: %d to %s", resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

// TestRecipeRefusesInternalSignIn: the Supabase CLI recipe with its
// sign-in URL missing (so derived from http://kong:8000) or pointing at
// Kong's Docker name refuses to start, saying what to set.
func TestRecipeRefusesInternalSignIn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the gateway binary")
	}
	vals := testValues(t)
	want := "GATEWAY_OAUTH_ISSUER must be the public URL browsers reach Supabase Auth at (…/auth/v1): http://kong:8000/auth/v1 has the single-label host kong"
	for _, tc := range []struct {
		name  string
		apply func(env map[string]string)
	}{
		{"without GATEWAY_OAUTH_ISSUER", func(env map[string]string) { delete(env, "GATEWAY_OAUTH_ISSUER") }},
		{"with GATEWAY_OAUTH_ISSUER on kong", func(env map[string]string) { env["GATEWAY_OAUTH_ISSUER"] = "http://kong:8000/auth/v1" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := recipes(t, vals, false)[0].env
			tc.apply(env)
			env["GATEWAY_LISTEN_ADDR"] = "127.0.0.1:0"
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, gatewayBinary(t))
			cmd.Env = envList(env)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v, want status 1\n%s", err, out)
			}
			if got, wantOut := string(out), "gateway: invalid configuration:\n  "+want+"\n"; got != wantOut {
				t.Errorf("output:\n%s\nwant:\n%s", got, wantOut)
			}
		})
	}
}

// TestRecipeWarnsOfDefaultProviders: a recipe whose GATEWAY_OAUTH_PROVIDERS
// is removed still starts, and says which setting it fell back on.
func TestRecipeWarnsOfDefaultProviders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the gateway binary")
	}
	env := recipes(t, testValues(t), false)[0].env
	delete(env, "GATEWAY_OAUTH_PROVIDERS")
	_, logged := startRecipe(t, env)
	var found bool
	for _, l := range strings.Split(logged(), "\n") {
		var line struct{ Level, Msg, Variable, Default string }
		if json.Unmarshal([]byte(l), &line) == nil && line.Variable == "GATEWAY_OAUTH_PROVIDERS" {
			found = true
			if line.Level != "WARN" || line.Default != "github" || !strings.HasPrefix(line.Msg, "GATEWAY_OAUTH_PROVIDERS is not set") {
				t.Errorf("warning %+v", line)
			}
		}
	}
	if !found {
		t.Errorf("no warning naming GATEWAY_OAUTH_PROVIDERS in:\n%s", logged())
	}
}

// TestCLIComposeNeedsOnlyItsEnvFile: the Supabase CLI recipe runs as its
// quick start writes it, with nothing exported: the example env file,
// its keys filled in, is all compose needs, the stack's network included.
func TestCLIComposeNeedsOnlyItsEnvFile(t *testing.T) {
	vals := testValues(t)
	vars := map[string]string{}
	for k, v := range readEnvFile(t, "supabase-cli/gateway.env.example") {
		vars[k] = fill(k, v, vals)
	}
	composeRecipe(t, "supabase-cli/compose.yaml", vars) // fails on a variable compose would refuse
	name := interpolate(t, dig(t, load(t, "supabase-cli/compose.yaml"), "networks", "supabase", "name").(string), vars)
	if name != "supabase_network_pawtograder-platform" {
		t.Errorf("network %q, want the platform's stack, supabase_network_pawtograder-platform", name)
	}
}
