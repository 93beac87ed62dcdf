package metrics

import "sync"

// children remembers the child series of a vector by their label values.
// A vector's WithLabelValues hashes every value and searches its map on
// each call; on the paths that record several series per request (the
// 401 answer among them) that was a few per cent of the CPU. Labels are
// clamped to known values before they get here, so the cache is bounded
// by the same sets as the series themselves.
type children[K comparable, S any] struct {
	mu     sync.RWMutex
	m      map[K]S
	lookup func(K) S // the vector's WithLabelValues
}

func newChildren[K comparable, S any](lookup func(K) S) *children[K, S] {
	return &children[K, S]{m: make(map[K]S), lookup: lookup}
}

func (c *children[K, S]) get(k K) S {
	c.mu.RLock()
	s, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return s
	}
	s = c.lookup(k)
	c.mu.Lock()
	c.m[k] = s
	c.mu.Unlock()
	return s
}
