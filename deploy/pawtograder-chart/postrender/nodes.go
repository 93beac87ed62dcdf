package main

import (
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Small builders and readers of yaml.Node trees. The post-renderer works on
// nodes rather than maps so that documents keep their key order and
// comments, and the objects it adds read like hand-written manifests.

// mapping builds a mapping from key, value pairs; a value is a string, an
// int, a bool or a *yaml.Node.
func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, str(kv[i].(string)), scalar(kv[i+1]))
	}
	return n
}

func scalar(v any) *yaml.Node {
	switch v := v.(type) {
	case *yaml.Node:
		return v
	case string:
		return str(v)
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
	}
	panic("mapping: unsupported value type")
}

// str is a string scalar. yaml.v3 quotes what YAML 1.2 would read as
// another type, but Kubernetes reads manifests as YAML 1.1, where on, off,
// yes, no, y and n are booleans too (an env value of off fails to
// decode), so those are quoted as well.
func str(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if yaml11Bool.MatchString(s) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

var yaml11Bool = regexp.MustCompile(`^(?i:y|n|yes|no|on|off|true|false)$`)

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

// get walks mapping keys; nil when a step is missing or not a mapping.
func get(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return n
}

// text is the value of a scalar at keys, "" when absent.
func text(n *yaml.Node, keys ...string) string {
	if v := get(n, keys...); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// set replaces or appends key in mapping m.
func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, str(key), v)
}

// ensure returns the mapping at key in m, creating it when absent.
func ensure(m *yaml.Node, key string) *yaml.Node {
	if v := get(m, key); v != nil && v.Kind == yaml.MappingNode {
		return v
	}
	v := mapping()
	set(m, key, v)
	return v
}

// clone deep-copies a node, so copied labels are not shared between
// documents.
func clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = nil
	for _, k := range n.Content {
		c.Content = append(c.Content, clone(k))
	}
	return &c
}

// items returns a sequence's items (nil for anything else).
func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
