package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gopkg.in/yaml.v3"
)

// The worked example of docs/deploy.md ("Scaling (HPA) and how many
// replicas"): what settings left out default to.
const (
	defaultReplicas    = 3  // a fixed count, with autoscaling off: the spike's
	defaultMinReplicas = 3  // the spike's event streams, which the HPA does not see
	defaultMaxReplicas = 6  // twice the spike's CPU; the database binds before more would help
	defaultTargetCPU   = 70 // percent of the CPU request
)

// defaultResources is the container's resources block when the settings
// have none: the worked example's requests (CPU: the HPA's target is a
// share of it; memory: a replica under load with its full stream cap) and
// limits (a burst to a whole core; memory with room for large bodies).
func defaultResources() *yaml.Node {
	return mapping(
		"requests", mapping("cpu", "250m", "memory", "128Mi"),
		"limits", mapping("cpu", "1", "memory", "256Mi"))
}

// Autoscaling is the settings' autoscaling block as written: a
// HorizontalPodAutoscaler (autoscaling/v2) scaling the gateway's
// Deployment on CPU. Each field is kept as written so that a value of the
// wrong type is refused naming its setting; Scaling is what they mean.
type Autoscaling struct {
	Enabled              yaml.Node `yaml:"enabled"`
	MinReplicas          yaml.Node `yaml:"minReplicas"`
	MaxReplicas          yaml.Node `yaml:"maxReplicas"`
	TargetCPUUtilization yaml.Node `yaml:"targetCPUUtilization"`
}

// Scaling is how many gateway replicas run: a fixed Replicas, or, when
// Autoscaled, between Min and Max at TargetCPU percent of the CPU request.
type Scaling struct {
	Autoscaled bool
	Replicas   int // the fixed count; 0 when Autoscaled
	Min, Max   int // the HPA's bounds; 0 unless Autoscaled
	TargetCPU  int // percent of resources.requests.cpu; 0 unless Autoscaled
}

// Fewest is the fewest replicas that run when nothing is disrupted.
func (sc Scaling) Fewest() int {
	if sc.Autoscaled {
		return sc.Min
	}
	return sc.Replicas
}

// scaling reads replicas and autoscaling, with the worked example's
// defaults for what is left out, and says what is wrong with each setting
// by name.
func scaling(replicas *yaml.Node, a Autoscaling, resources *yaml.Node) (Scaling, error) {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf("settings: "+format, args...)) }
	whole := func(n *yaml.Node, name string, def, lo, hi int, want string) int {
		if n.Kind == 0 {
			return def
		}
		v, err := strconv.Atoi(n.Value)
		switch {
		case n.Kind != yaml.ScalarNode || err != nil || n.Tag != "!!int" || v < lo:
			fail("%s must be %s (got %s)", name, want, nodeText(n))
		case v > hi:
			fail("%s must be at most %d (got %s)", name, hi, nodeText(n))
		default:
			return v
		}
		return def
	}
	on := true
	if a.Enabled.Kind != 0 {
		if a.Enabled.Kind != yaml.ScalarNode || a.Enabled.Tag != "!!bool" {
			fail("autoscaling.enabled must be true or false (got %s)", nodeText(&a.Enabled))
		} else {
			on = a.Enabled.Value == "true"
		}
	}
	sc := Scaling{Autoscaled: on}
	if !on {
		sc.Replicas = whole(replicas, "replicas", defaultReplicas, 1, math.MaxInt32, "a whole number of at least 1")
		return sc, errors.Join(errs...)
	}
	if replicas.Kind != 0 {
		// A fixed count the HPA would overrule at once: refuse it rather
		// than let the file say something that is not so.
		fail("replicas is the fixed count without autoscaling; with autoscaling on, the HorizontalPodAutoscaler sets it between autoscaling.minReplicas and autoscaling.maxReplicas: remove replicas, or set autoscaling.enabled: false")
	}
	sc.Min = whole(&a.MinReplicas, "autoscaling.minReplicas", defaultMinReplicas, 1, math.MaxInt32, "a whole number of at least 1")
	sc.Max = whole(&a.MaxReplicas, "autoscaling.maxReplicas", defaultMaxReplicas, 1, math.MaxInt32, "a whole number of at least 1")
	sc.TargetCPU = whole(&a.TargetCPUUtilization, "autoscaling.targetCPUUtilization", defaultTargetCPU, 1, 100,
		"a whole percentage of resources.requests.cpu from 1 to 100")
	if sc.Max < sc.Min {
		fail("autoscaling.maxReplicas (%d) must be at least autoscaling.minReplicas (%d)", sc.Max, sc.Min)
	}
	if resources.Kind == yaml.MappingNode && text(resources, "requests", "cpu") == "" {
		fail("autoscaling scales on CPU as a share of resources.requests.cpu, which is not set: set it, or set autoscaling.enabled: false")
	}
	return sc, errors.Join(errs...)
}

// nodeText shows a setting's value as written, for an error message: a
// string quoted, so that "2" and 2 read differently.
func nodeText(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		return strconv.Quote(n.Value)
	case n.Kind == yaml.ScalarNode:
		return n.Value
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	return "an alias"
}

// autoscaler is the HorizontalPodAutoscaler of the gateway's Deployment
// called name.
func autoscaler(meta *yaml.Node, name string, sc Scaling) *yaml.Node {
	return mapping(
		"apiVersion", "autoscaling/v2",
		"kind", "HorizontalPodAutoscaler",
		"metadata", meta,
		"spec", mapping(
			"scaleTargetRef", mapping("apiVersion", "apps/v1", "kind", "Deployment", "name", name),
			"minReplicas", sc.Min,
			"maxReplicas", sc.Max,
			"metrics", seq(mapping(
				"type", "Resource",
				"resource", mapping(
					"name", "cpu",
					"target", mapping("type", "Utilization", "averageUtilization", sc.TargetCPU)))),
		),
	)
}
