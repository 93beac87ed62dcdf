package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Settings are the post-renderer's own settings (mcp-gateway.yaml): what
// the chart's rendered manifests cannot tell.
type Settings struct {
	// Image is the gateway's image reference.
	Image string `yaml:"image"`
	// Replicas is the Deployment's fixed replica count, with autoscaling
	// off; as written, read by scaling.
	Replicas yaml.Node `yaml:"replicas"`
	// Autoscaling is the HorizontalPodAutoscaler's block as written.
	Autoscaling Autoscaling `yaml:"autoscaling"`
	// Scaling is what Replicas and Autoscaling mean, defaults applied
	// (filled by LoadSettings).
	Scaling Scaling `yaml:"-"`
	// Secret names the operator-created Secret with MCP_JWT_SECRET and,
	// when OAuth is on, GATEWAY_OAUTH_SECRET.
	Secret string `yaml:"secret"`
	// OAuth turns on the gateway's own OAuth server: GATEWAY_OAUTH_SECRET
	// from Secret and the sign-in callback in GoTrue's allow-list.
	OAuth bool `yaml:"oauth"`
	// PublicURL is the public API base; empty takes the web app's
	// SUPABASE_URL from the rendered chart.
	PublicURL string `yaml:"publicURL"`
	// StreamTimeout is Kong's read and write timeout towards the gateway.
	StreamTimeout time.Duration `yaml:"streamTimeout"`
	// Resources is the container's resources block, as in a pod spec.
	Resources yaml.Node `yaml:"resources"`
	// Env holds further gateway settings by variable name.
	Env map[string]string `yaml:"env"`
}

var envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// LoadSettings parses and checks a settings file; unknown keys are errors,
// so a misspelt setting is not silently ignored.
func LoadSettings(data []byte) (Settings, error) {
	var s Settings
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return Settings{}, fmt.Errorf("settings: %w", err)
	}
	var errs []error
	if s.Image == "" {
		errs = append(errs, errors.New("settings: image is required"))
	}
	if s.Secret == "" {
		errs = append(errs, errors.New("settings: secret (the Secret holding MCP_JWT_SECRET) is required"))
	}
	if s.PublicURL != "" {
		if u, err := url.Parse(s.PublicURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("settings: publicURL must be an absolute http(s) URL such as https://api.example.edu (got %q)", s.PublicURL))
		}
	}
	if s.StreamTimeout <= 0 {
		errs = append(errs, fmt.Errorf("settings: streamTimeout must be a positive duration such as 1h (got %s)", s.StreamTimeout))
	}
	if s.Resources.Kind != 0 && s.Resources.Kind != yaml.MappingNode {
		errs = append(errs, errors.New("settings: resources must be a mapping (requests, limits)"))
	}
	sc, err := scaling(&s.Replicas, s.Autoscaling, &s.Resources)
	if err != nil {
		errs = append(errs, err)
	}
	s.Scaling = sc
	if s.WriteTools() && !s.OAuth {
		errs = append(errs, errors.New("settings: env GATEWAY_WRITE_TOOLS is on, which needs oauth: true (the approval page's sign-in uses GATEWAY_OAUTH_SECRET and GoTrue's allow-list)"))
	}
	if err := checkShutdownTimeout(s.Env); err != nil {
		errs = append(errs, err)
	}
	for name := range s.Env {
		if !envName.MatchString(name) {
			errs = append(errs, fmt.Errorf("settings: env name %q is not an environment variable name", name))
		} else if managedEnv[name] {
			errs = append(errs, fmt.Errorf("settings: env %s is set by the post-renderer from the chart; remove it from env", name))
		}
	}
	return s, errors.Join(errs...)
}

// WriteTools reports whether env turns the write tools on (the gateway's
// GATEWAY_WRITE_TOOLS, case-insensitive as the gateway reads it).
func (s Settings) WriteTools() bool {
	return strings.EqualFold(strings.TrimSpace(s.Env["GATEWAY_WRITE_TOOLS"]), "on")
}

// managedEnv are the variables the post-renderer derives itself.
var managedEnv = map[string]bool{
	"GATEWAY_LISTEN_ADDR": true, "GATEWAY_METRICS_ADDR": true,
	"SUPABASE_URL": true, "GATEWAY_POSTGREST_URL": true, "GATEWAY_AUTH_URL": true,
	"GATEWAY_PUBLIC_URL": true, "EDGE_FUNCTIONS_URL": true, "GATEWAY_OAUTH_ISSUER": true,
	"SUPABASE_ANON_KEY": true, "SUPABASE_SERVICE_ROLE_KEY": true, "JWT_SECRET": true,
	"MCP_JWT_SECRET": true, "GATEWAY_OAUTH_SECRET": true,
	"GITHUB_APP_ID": true, "GITHUB_PRIVATE_KEY_STRING": true, "SENTRY_DSN": true,
}
