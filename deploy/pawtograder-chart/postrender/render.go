package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Names and numbers of what the post-renderer adds.
const (
	component   = "mcp-gateway" // app.kubernetes.io/component, name suffix and Kong service name
	gatewayPort = 9000          // the gateway's default listen port
	metricsPort = 9100
	// sourceComment heads every added document, as Helm's "# Source:" lines
	// do, so `helm get manifest` shows where they come from.
	sourceComment = "# Source: mcp-gateway post-renderer (deploy/pawtograder-chart)"
)

// gatewayPaths are the Kong route paths sent to the gateway, unstripped.
// Kong prefers the longest matching prefix among routes with the same
// kinds of attributes, so the first two win over the chart's
// functions-v1-all (/functions/v1/) and every other function stays on the
// edge runtime. The /.well-known ones are prefixes too: they cover
// /.well-known/oauth-protected-resource/functions/v1/mcp-server and the
// authorization server's .../functions/v1/mcp-server/oauth.
var gatewayPaths = []string{
	"/functions/v1/mcp-server",
	"/functions/v1/mcp-tokens",
	"/.well-known/oauth-protected-resource",
	"/.well-known/oauth-authorization-server/functions/v1/mcp-server",
	"/.well-known/openid-configuration/functions/v1/mcp-server",
}

// callbackPath is where Supabase Auth returns people to the gateway's
// OAuth server (docs/oauth.md, operator set-up step 4); approvePath is
// where it returns them to a write's approval page (docs/writes.md).
const (
	callbackPath = "/functions/v1/mcp-server/oauth/callback"
	approvePath  = "/functions/v1/mcp-server/approve/callback"
)

// doc is one YAML document of the stream: its text as read, and its parse
// when it holds an object. Documents the post-renderer does not change are
// written back byte for byte.
type doc struct {
	raw     string
	node    *yaml.Node // document node; nil for a document without content
	changed bool
}

func (d *doc) root() *yaml.Node {
	if d.node == nil || len(d.node.Content) == 0 {
		return nil
	}
	return d.node.Content[0]
}

func (d *doc) is(kind, name string) bool {
	r := d.root()
	return r != nil && text(r, "kind") == kind && text(r, "metadata", "name") == name
}

// splitDocs cuts a manifest stream at its "---" lines. A line that is
// exactly "---" (or starts with "--- ") at column 0 cannot be inside a
// block scalar, whose lines are indented.
func splitDocs(in []byte) ([]*doc, error) {
	var raws []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(string(in), "\n") {
		trimmed := strings.TrimRight(line, "\r\n")
		if trimmed == "---" || strings.HasPrefix(trimmed, "--- ") {
			raws = append(raws, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	raws = append(raws, cur.String())
	var docs []*doc
	for _, raw := range raws {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(raw), &n); err != nil {
			return nil, fmt.Errorf("document %d of the chart's output: %w", len(docs)+1, err)
		}
		d := &doc{raw: raw}
		if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
			d.node = &n
		}
		docs = append(docs, d)
	}
	return docs, nil
}

func writeDocs(docs []*doc) ([]byte, error) {
	var out bytes.Buffer
	for _, d := range docs {
		out.WriteString("---\n")
		if !d.changed {
			out.WriteString(d.raw)
			if !strings.HasSuffix(d.raw, "\n") {
				out.WriteString("\n")
			}
			continue
		}
		b, err := encode(d.node)
		if err != nil {
			return nil, err
		}
		out.Write(b)
	}
	return out.Bytes(), nil
}

func encode(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// release is what the post-renderer learns from the chart's output.
type release struct {
	fullname  string // the chart's pawtograder.fullname
	namespace string
	kongCM    *doc
	kong      *doc // the Kong Deployment
	jwtSecret string
	edgeEnv   string // the edge functions' integration Secret; "" when unknown
	publicURL string
	issuer    string
	kongURL   string
	restURL   string // "" when the rest Service is not rendered
	authURL   string
}

// Render adds the gateway to a rendered pawtograder chart: its Deployment,
// Service, HorizontalPodAutoscaler and PodDisruptionBudget, a Kong service with the gateway's
// routes in the chart's kong.yml, the matching checksum on Kong's pod
// template, and (with OAuth) the gateway's callback in GoTrue's redirect
// allow-list. Its output is a fixed point: rendering it again changes
// nothing.
func Render(in []byte, s Settings) ([]byte, error) {
	out, _, err := render(in, s)
	return out, err
}

// render is Render with the warnings about the release: problems that do
// not stop the gateway from starting but would fail every sign-in. They
// head the gateway's Deployment as comments, since Helm shows nothing a
// post-renderer writes to stderr when it succeeds.
func render(in []byte, s Settings) ([]byte, []string, error) {
	docs, err := splitDocs(in)
	if err != nil {
		return nil, nil, err
	}
	rel, err := inspect(docs, s)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	if s.OAuth {
		warnings = providerWarnings(gotrue(docs, rel), s)
	}
	if err := addKongRoutes(rel, s); err != nil {
		return nil, nil, err
	}
	if s.OAuth {
		callbacks := []string{rel.publicURL + callbackPath}
		if s.WriteTools() {
			callbacks = append(callbacks, rel.publicURL+approvePath)
		}
		if err := allowCallbacks(docs, rel, callbacks); err != nil {
			return nil, nil, err
		}
	}
	name := rel.fullname + "-" + component
	docs = slices.DeleteFunc(docs, func(d *doc) bool {
		return d.is("Deployment", name) || d.is("Service", name) || d.is("HorizontalPodAutoscaler", name) || d.is("PodDisruptionBudget", name)
	})
	for _, obj := range gatewayObjects(rel, s) {
		head := sourceComment
		if text(obj, "kind") == "Deployment" {
			for _, w := range warnings {
				head += "\n# WARNING: " + w
			}
		}
		docs = append(docs, &doc{node: &yaml.Node{Kind: yaml.DocumentNode, HeadComment: head, Content: []*yaml.Node{obj}}, changed: true})
	}
	out, err := writeDocs(docs)
	return out, warnings, err
}

// providerWarnings names each sign-in provider of the gateway that the
// release's GoTrue does not enable (GOTRUE_EXTERNAL_<NAME>_ENABLED=true, the
// chart's auth.external.<name>.enabled), and a GATEWAY_OAUTH_PROVIDERS left
// to the gateway's default.
func providerWarnings(c *gotrueContainer, s Settings) []string {
	var out []string
	list, set := s.Env["GATEWAY_OAUTH_PROVIDERS"]
	if !set {
		list = "github"
		out = append(out, "env GATEWAY_OAUTH_PROVIDERS is not set, so the gateway offers its default, github; set it to the providers people sign in with")
	}
	enabled := map[string]bool{}
	if c != nil {
		for _, e := range items(get(c.container, "env")) {
			name, ok := strings.CutPrefix(text(e, "name"), "GOTRUE_EXTERNAL_")
			if name, ok2 := strings.CutSuffix(name, "_ENABLED"); ok && ok2 && strings.EqualFold(text(e, "value"), "true") {
				enabled[strings.ToLower(name)] = true
			}
		}
	}
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" && !enabled[p] {
			out = append(out, fmt.Sprintf("GATEWAY_OAUTH_PROVIDERS names %s, which the chart's GoTrue does not enable (GOTRUE_EXTERNAL_%s_ENABLED; values auth.external.%s.enabled): signing in with it fails", p, strings.ToUpper(p), p))
		}
	}
	return out
}

func inspect(docs []*doc, s Settings) (*release, error) {
	kongCM, full, err := releaseKongConfig(docs)
	if err != nil {
		return nil, err
	}
	rel := &release{kongCM: kongCM, fullname: full, namespace: text(kongCM.root(), "metadata", "namespace")}
	find := func(kind, suffix string) *doc {
		for _, d := range docs {
			if d.is(kind, full+"-"+suffix) {
				return d
			}
		}
		return nil
	}
	if rel.kong = find("Deployment", "kong"); rel.kong == nil {
		return nil, fmt.Errorf("no Kong Deployment %s-kong in the chart's output", full)
	}
	if sel := get(rel.kong.root(), "spec", "selector", "matchLabels"); sel == nil || sel.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the Kong Deployment %s-kong has no spec.selector.matchLabels", full)
	}
	kongEnv := containerEnv(rel.kong, "kong")
	rel.jwtSecret = text(kongEnv["SUPABASE_ANON_KEY"], "valueFrom", "secretKeyRef", "name")
	if rel.jwtSecret == "" {
		return nil, fmt.Errorf("the Kong Deployment %s-kong reads SUPABASE_ANON_KEY from no Secret; cannot find the chart's JWT Secret", full)
	}
	var fnEnv map[string]*yaml.Node
	if fn := find("Deployment", "functions"); fn != nil {
		fnEnv = containerEnv(fn, "functions")
		// The chart's secrets.names.edgeFunctions is the first envFrom.
		if from := items(get(podContainer(fn, "functions"), "envFrom")); len(from) > 0 {
			rel.edgeEnv = text(from[0], "secretRef", "name")
		}
	}
	var webEnv map[string]*yaml.Node
	if web := find("Deployment", "web"); web != nil {
		webEnv = containerEnv(web, "web")
	}
	var authEnv map[string]*yaml.Node
	if auth := find("Deployment", "auth"); auth != nil {
		authEnv = containerEnv(auth, "gotrue")
	}
	if rel.publicURL, err = publicURL(s, webEnv, fnEnv); err != nil {
		return nil, err
	}
	rel.issuer = text(authEnv["GOTRUE_JWT_ISSUER"], "value")
	if rel.issuer == "" {
		rel.issuer = rel.publicURL + "/auth/v1"
	}
	port := func(suffix string) string { return serviceURL(find("Service", suffix), full+"-"+suffix) }
	if rel.kongURL = port("kong"); rel.kongURL == "" {
		return nil, fmt.Errorf("no Service %s-kong with a port named http in the chart's output", full)
	}
	rel.restURL, rel.authURL = port("rest"), port("auth")
	return rel, nil
}

// releaseKongConfig finds the release's Kong ConfigMap (the one holding a
// kong.yml) and the release's full name, which prefixes it.
func releaseKongConfig(docs []*doc) (*doc, string, error) {
	var cm *doc
	for _, d := range docs {
		r := d.root()
		if r != nil && text(r, "kind") == "ConfigMap" && get(r, "data", "kong.yml") != nil {
			if cm != nil {
				return nil, "", errors.New("more than one ConfigMap holds a kong.yml; cannot tell which is the release's Kong configuration")
			}
			cm = d
		}
	}
	if cm == nil {
		return nil, "", errors.New("no Kong ConfigMap in the chart's output (a ConfigMap with data.kong.yml, from the chart's templates/kong-config.yaml): is this the pawtograder chart with kong.enabled=true?")
	}
	cmName := text(cm.root(), "metadata", "name")
	full, ok := strings.CutSuffix(cmName, "-kong-config")
	if !ok || full == "" {
		return nil, "", fmt.Errorf("the Kong ConfigMap is named %q, not <release>-kong-config", cmName)
	}
	return cm, full, nil
}

// publicURL is the API's public URL: the settings', else the web
// Deployment's SUPABASE_URL, else the functions Deployment's
// SUPABASE_PUBLIC_URL.
func publicURL(s Settings, webEnv, fnEnv map[string]*yaml.Node) (string, error) {
	for _, u := range []string{s.PublicURL, text(webEnv["SUPABASE_URL"], "value"), text(fnEnv["SUPABASE_PUBLIC_URL"], "value")} {
		if u != "" {
			return strings.TrimRight(u, "/"), nil
		}
	}
	return "", errors.New("cannot find the public API URL (the web Deployment's SUPABASE_URL or the functions Deployment's SUPABASE_PUBLIC_URL); set publicURL in the settings")
}

// serviceURL is the in-cluster URL of svc's port named http ("" when svc
// is nil or has none).
func serviceURL(svc *doc, name string) string {
	if svc == nil {
		return ""
	}
	for _, p := range items(get(svc.root(), "spec", "ports")) {
		if text(p, "name") == "http" {
			return fmt.Sprintf("http://%s:%s", name, text(p, "port"))
		}
	}
	return ""
}

// podContainer is the named container of a Deployment's pod template.
func podContainer(d *doc, name string) *yaml.Node {
	for _, c := range items(get(d.root(), "spec", "template", "spec", "containers")) {
		if text(c, "name") == name {
			return c
		}
	}
	return nil
}

// containerEnv maps a container's env entries by name.
func containerEnv(d *doc, name string) map[string]*yaml.Node {
	env := map[string]*yaml.Node{}
	for _, e := range items(get(podContainer(d, name), "env")) {
		env[text(e, "name")] = e
	}
	return env
}

// addKongRoutes puts the gateway's Kong service into kong.yml, before the
// chart's functions-v1 (where a reader looks for it; Kong's matching does
// not depend on the order), and sets Kong's checksum/config annotation to
// the new text so that an upgrade rolls Kong onto the new routes.
func addKongRoutes(rel *release, s Settings) error {
	holder := get(rel.kongCM.root(), "data", "kong.yml")
	var k yaml.Node
	if err := yaml.Unmarshal([]byte(holder.Value), &k); err != nil {
		return fmt.Errorf("the Kong ConfigMap's kong.yml: %w", err)
	}
	var services *yaml.Node
	if k.Kind == yaml.DocumentNode && len(k.Content) > 0 {
		services = get(k.Content[0], "services")
	}
	if services == nil || services.Kind != yaml.SequenceNode {
		return errors.New("the Kong ConfigMap's kong.yml has no services list")
	}
	services.Content = slices.DeleteFunc(services.Content, func(n *yaml.Node) bool { return text(n, "name") == component })
	at := len(services.Content)
	for i, svc := range services.Content {
		if text(svc, "name") == "functions-v1" {
			at = i
			break
		}
	}
	paths := seq()
	for _, p := range gatewayPaths {
		paths.Content = append(paths.Content, str(p))
	}
	timeout := int(s.StreamTimeout.Milliseconds())
	svc := mapping(
		"name", component,
		"_comment", fmt.Sprintf("MCP gateway: mcp-server, mcp-tokens and their OAuth metadata -> http://%s-%s:%d (paths unstripped)", rel.fullname, component, gatewayPort),
		"url", fmt.Sprintf("http://%s-%s:%d", rel.fullname, component, gatewayPort),
		"read_timeout", timeout,
		"write_timeout", timeout,
		"routes", seq(mapping("name", component+"-all", "strip_path", false, "paths", paths)),
	)
	services.Content = slices.Insert(services.Content, at, svc)
	b, err := encode(&k)
	if err != nil {
		return err
	}
	holder.Value, holder.Style, holder.Tag = string(b), yaml.LiteralStyle, "!!str"
	rel.kongCM.changed = true

	sum := sha256.Sum256(b)
	tmeta := get(rel.kong.root(), "spec", "template", "metadata")
	if tmeta == nil {
		return fmt.Errorf("the Kong Deployment %s-kong has no pod template metadata", rel.fullname)
	}
	set(ensure(tmeta, "annotations"), "checksum/config", str(hex.EncodeToString(sum[:])))
	rel.kong.changed = true
	return nil
}

// allowCallbacks adds the gateway's sign-in callbacks to GoTrue's redirect
// allow-list (the chart allows only the web app's URLs): without them
// Supabase Auth sends people to the Site URL and the connection, or the
// approval, never completes.
func allowCallbacks(docs []*doc, rel *release, callbacks []string) error {
	c := gotrue(docs, rel)
	if c == nil {
		return fmt.Errorf("oauth is on but the chart's output has no Deployment %s-auth with a gotrue container, whose GOTRUE_URI_ALLOW_LIST must allow the gateway's callback", rel.fullname)
	}
	env := get(c.container, "env")
	if env == nil {
		env = seq()
		set(c.container, "env", env)
	}
	var entry *yaml.Node
	for _, e := range items(env) {
		if text(e, "name") == "GOTRUE_URI_ALLOW_LIST" {
			entry = e
		}
	}
	if entry == nil {
		entry = mapping("name", "GOTRUE_URI_ALLOW_LIST", "value", "")
		env.Content = append(env.Content, entry)
	}
	v := text(entry, "value")
	for _, cb := range callbacks {
		if v != "" && slices.Contains(strings.Split(v, ","), cb) {
			continue
		}
		if v != "" {
			v += ","
		}
		v += cb
	}
	if v != text(entry, "value") {
		set(entry, "value", str(v))
		c.doc.changed = true
	}
	return nil
}

// gotrueContainer is the gotrue container of the release's auth
// Deployment, with its document.
type gotrueContainer struct {
	doc       *doc
	container *yaml.Node
}

// gotrue finds the release's GoTrue container; nil when the chart's output
// has none.
func gotrue(docs []*doc, rel *release) *gotrueContainer {
	for _, d := range docs {
		if d.is("Deployment", rel.fullname+"-auth") {
			if c := podContainer(d, "gotrue"); c != nil {
				return &gotrueContainer{d, c}
			}
		}
	}
	return nil
}

// withComponent copies a label mapping with the component label replaced.
func withComponent(labels *yaml.Node) *yaml.Node {
	l := clone(labels)
	if l == nil || l.Kind != yaml.MappingNode {
		l = mapping()
	}
	set(l, "app.kubernetes.io/component", str(component))
	return l
}

func secretRef(secret, key string, optional bool) *yaml.Node {
	ref := mapping("name", secret, "key", key)
	if optional {
		set(ref, "optional", scalar(true))
	}
	return mapping("secretKeyRef", ref)
}

// gatewayEnv is the container's environment. Every name is one the
// gateway reads (TestEnvNamesAreRead checks them against gateway/config).
func gatewayEnv(rel *release, s Settings) *yaml.Node {
	env := seq()
	value := func(name, v string) { env.Content = append(env.Content, mapping("name", name, "value", v)) }
	from := func(name string, ref *yaml.Node) {
		env.Content = append(env.Content, mapping("name", name, "valueFrom", ref))
	}
	value("GATEWAY_LISTEN_ADDR", ":"+strconv.Itoa(gatewayPort))
	value("GATEWAY_METRICS_ADDR", ":"+strconv.Itoa(metricsPort))
	// Kong for anything derived from SUPABASE_URL; PostgREST and Auth
	// directly, which saves a hop on every request (the gateway then sends
	// them no apikey, which only Kong checks).
	value("SUPABASE_URL", rel.kongURL)
	if rel.restURL != "" {
		value("GATEWAY_POSTGREST_URL", rel.restURL)
	}
	if rel.authURL != "" {
		value("GATEWAY_AUTH_URL", rel.authURL)
	}
	value("GATEWAY_PUBLIC_URL", rel.publicURL)
	value("EDGE_FUNCTIONS_URL", rel.publicURL)
	value("GATEWAY_OAUTH_ISSUER", rel.issuer)
	from("SUPABASE_ANON_KEY", secretRef(rel.jwtSecret, "ANON_KEY", false))
	from("SUPABASE_SERVICE_ROLE_KEY", secretRef(rel.jwtSecret, "SERVICE_ROLE_KEY", false))
	// The chart's ES256 signing key, whose public half PostgREST already
	// trusts (JWT_PUBLIC_JWKS); the edge functions read it under the same
	// variable name.
	from("JWT_SECRET", secretRef(rel.jwtSecret, "JWT_SIGNING_JWK", false))
	from("MCP_JWT_SECRET", secretRef(s.Secret, "MCP_JWT_SECRET", false))
	if s.OAuth {
		from("GATEWAY_OAUTH_SECRET", secretRef(s.Secret, "GATEWAY_OAUTH_SECRET", false))
	}
	if rel.edgeEnv != "" {
		// The integration Secret the edge functions read (bundles
		// github-app and sentry); optional there, so optional here.
		for _, k := range []string{"GITHUB_APP_ID", "GITHUB_PRIVATE_KEY_STRING", "SENTRY_DSN"} {
			from(k, secretRef(rel.edgeEnv, k, true))
		}
	}
	extra := map[string]string{"GATEWAY_LOG_FORMAT": "json", "GATEWAY_SHUTDOWN_TIMEOUT": defaultShutdownTimeout}
	for k, v := range s.Env {
		extra[k] = v
	}
	names := make([]string, 0, len(extra))
	for k := range extra {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		value(k, extra[k])
	}
	return env
}

func gatewayObjects(rel *release, s Settings) []*yaml.Node {
	name := rel.fullname + "-" + component
	kong := rel.kong.root()
	meta := func() *yaml.Node {
		m := mapping("name", name)
		if rel.namespace != "" {
			set(m, "namespace", str(rel.namespace))
		}
		set(m, "labels", withComponent(get(kong, "metadata", "labels")))
		return m
	}
	selector := withComponent(get(kong, "spec", "selector", "matchLabels"))

	pod := gatewayPod(get(kong, "spec", "template", "spec"), gatewayContainer(rel, s), selector, graceSeconds(s.shutdownTimeout()))
	spec := mapping(
		"revisionHistoryLimit", 3,
		"strategy", mapping("type", "RollingUpdate", "rollingUpdate", mapping("maxUnavailable", 0, "maxSurge", 1)),
		"selector", mapping("matchLabels", clone(selector)),
		"template", mapping(
			"metadata", mapping("labels", withComponent(get(kong, "spec", "template", "metadata", "labels"))),
			"spec", pod))
	if !s.Scaling.Autoscaled {
		// A fixed count only without the HorizontalPodAutoscaler. With it
		// in charge spec.replicas is left out, as Kubernetes advises
		// ("Migrating Deployments and StatefulSets to horizontal
		// autoscaling"): every upgrade would otherwise reset the count
		// the HPA chose to the file's, shrinking the gateway in the
		// middle of a spike until the HPA scaled it up again.
		spec.Content = append([]*yaml.Node{str("replicas"), scalar(s.Scaling.Replicas)}, spec.Content...)
	}
	deployment := mapping(
		"apiVersion", "apps/v1",
		"kind", "Deployment",
		"metadata", meta(),
		"spec", spec,
	)
	service := mapping(
		"apiVersion", "v1",
		"kind", "Service",
		"metadata", meta(),
		"spec", mapping(
			"type", "ClusterIP",
			"ports", seq(
				mapping("name", "http", "port", gatewayPort, "targetPort", "http"),
				mapping("name", "metrics", "port", metricsPort, "targetPort", "metrics")),
			"selector", clone(selector)),
	)
	objs := []*yaml.Node{deployment, service}
	if s.Scaling.Autoscaled {
		objs = append(objs, autoscaler(meta(), name, s.Scaling))
	}
	if fewest := s.Scaling.Fewest(); fewest > 1 {
		// As the chart does, a PodDisruptionBudget only for several
		// replicas (one would block node drains outright). A drain may
		// take one of the fewest that run, so the rest of them hold the
		// streams they were sized for (docs/deploy.md).
		objs = append(objs, mapping(
			"apiVersion", "policy/v1",
			"kind", "PodDisruptionBudget",
			"metadata", meta(),
			"spec", mapping("minAvailable", fewest-1, "selector", mapping("matchLabels", clone(selector)))))
	}
	return objs
}

// gatewayContainer is the gateway's container: the image, its ports, its
// environment, probes on /readyz and /healthz, the preStop sleep
// (shutdown.go), the resources of the settings (or the worked example's)
// and a locked-down security context.
func gatewayContainer(rel *release, s Settings) *yaml.Node {
	resources := &s.Resources
	if resources.Kind == 0 {
		resources = defaultResources()
	}
	probe := func(path string, period, timeout int) *yaml.Node {
		return mapping("httpGet", mapping("path", path, "port", "http"),
			"periodSeconds", period, "timeoutSeconds", timeout, "failureThreshold", 3)
	}
	container := mapping(
		"name", "gateway",
		"image", s.Image,
		"imagePullPolicy", "IfNotPresent",
		"ports", seq(
			mapping("name", "http", "containerPort", gatewayPort, "protocol", "TCP"),
			mapping("name", "metrics", "containerPort", metricsPort, "protocol", "TCP")),
		"env", gatewayEnv(rel, s),
		"readinessProbe", probe("/readyz", 10, 3),
		"livenessProbe", probe("/healthz", 20, 2),
		"lifecycle", preStopSleep(),
		"resources", clone(resources),
		"securityContext", mapping(
			"allowPrivilegeEscalation", false,
			"readOnlyRootFilesystem", true,
			"capabilities", mapping("drop", seq(str("ALL")))),
	)
	return container
}

// gatewayPod is the gateway's pod spec around container: Kong's service
// account, pull secrets, priority and placement (the chart applies its
// global values there), a non-root security context, grace seconds for
// the preStop sleep and the drain (shutdown.go), and replicas spread over
// nodes.
func gatewayPod(kongPod, container, selector *yaml.Node, grace int) *yaml.Node {
	pod := mapping()
	for _, k := range []string{"serviceAccountName", "imagePullSecrets", "priorityClassName"} {
		if v := get(kongPod, k); v != nil {
			set(pod, k, clone(v))
		}
	}
	set(pod, "automountServiceAccountToken", scalar(false))
	set(pod, "terminationGracePeriodSeconds", scalar(grace))
	set(pod, "securityContext", mapping(
		"runAsNonRoot", true, "runAsUser", 65532, "runAsGroup", 65532,
		"seccompProfile", mapping("type", "RuntimeDefault")))
	set(pod, "containers", seq(container))
	for _, k := range []string{"nodeSelector", "tolerations"} {
		if v := get(kongPod, k); v != nil {
			set(pod, k, clone(v))
		}
	}
	set(pod, "affinity", mapping("podAntiAffinity", mapping(
		"preferredDuringSchedulingIgnoredDuringExecution", seq(mapping(
			"weight", 100,
			"podAffinityTerm", mapping(
				"topologyKey", "kubernetes.io/hostname",
				"labelSelector", mapping("matchLabels", clone(selector))))))))

	return pod
}
