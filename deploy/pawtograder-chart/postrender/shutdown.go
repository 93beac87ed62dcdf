package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// How a gateway pod stops (docs/deploy.md, "Rollout"). When Kubernetes
// deletes a pod it takes the pod out of the Service's endpoints and, at
// the same moment, runs its preStop hook; SIGTERM follows the hook. The
// gateway closes its listener the moment SIGTERM arrives, so without a
// delay Kong and kube-proxy, which learn of the removal a little later,
// would still send it new connections and have them refused. The preStop
// sleep keeps the pod serving until they have caught up; then the
// gateway drains for at most GATEWAY_SHUTDOWN_TIMEOUT, and the grace
// period, which counts from the start of the hook, covers both with a
// margin for the process to exit.
//
// The hook is Kubernetes' own sleep action, because the image is
// distroless: it has no shell and no sleep binary for an exec hook. The
// action is beta and on by default from Kubernetes 1.30 and GA in 1.34
// (KEP-3960); the chart allows 1.27, so the gateway needs 1.30 or later
// (README.md).
const (
	preStopSeconds         = 10
	graceMarginSeconds     = 5
	defaultShutdownTimeout = "20s"
)

// shutdownTimeout is the GATEWAY_SHUTDOWN_TIMEOUT the pod gets: env's, or
// the post-renderer's default. LoadSettings has checked env's.
func (s Settings) shutdownTimeout() time.Duration {
	v := defaultShutdownTimeout
	if e, ok := s.Env["GATEWAY_SHUTDOWN_TIMEOUT"]; ok {
		v = e
	}
	d, _ := time.ParseDuration(strings.TrimSpace(v))
	return d
}

// checkShutdownTimeout refuses an env GATEWAY_SHUTDOWN_TIMEOUT the
// gateway would refuse (gateway/config: a positive Go duration), since
// the grace period is computed from it.
func checkShutdownTimeout(env map[string]string) error {
	v, ok := env["GATEWAY_SHUTDOWN_TIMEOUT"]
	if !ok {
		return nil
	}
	if d, err := time.ParseDuration(strings.TrimSpace(v)); err != nil || d <= 0 {
		return fmt.Errorf("settings: env GATEWAY_SHUTDOWN_TIMEOUT must be a positive duration such as 20s (got %q)", v)
	}
	return nil
}

// graceSeconds is terminationGracePeriodSeconds: the preStop sleep, the
// drain in whole seconds rounded up, and the margin.
func graceSeconds(shutdown time.Duration) int {
	return preStopSeconds + int(math.Ceil(shutdown.Seconds())) + graceMarginSeconds
}

// preStopSleep is the container's lifecycle block.
func preStopSleep() *yaml.Node {
	return mapping("preStop", mapping("sleep", mapping("seconds", preStopSeconds)))
}
