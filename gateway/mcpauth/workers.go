package mcpauth

import (
	"sync"
	"time"
)

// workerIdle is how long a look-up worker may stay idle before it is let go.
const workerIdle = 2 * time.Second

// workers runs Authenticate's concurrent staff look-up on reused
// goroutines. A fresh goroutine starts with a small stack that an HTTP
// round trip outgrows, so with a plain go statement the runtime grew (and
// copied) a stack on every authenticated request — about 6 % of the
// gateway's CPU in the profile of docs/performance.md. A worker keeps its
// grown stack between look-ups.
//
// There is no bound and no queue: when no worker is idle a new one starts,
// so a look-up never waits for another one, exactly as with a go statement.
// Workers idle for longer than workerIdle are let go on a later run (the
// oldest idle ones are first in the list) and by close.
type workers struct {
	mu        sync.Mutex
	ready     []*worker // idle workers, the most recently used last
	lastClean time.Time
	closed    bool
}

type worker struct {
	jobs   chan func() // closed to let the worker go
	idleAt time.Time
}

// run runs f on an idle worker, or on a new one.
func (p *workers) run(f func()) {
	now := time.Now()
	p.mu.Lock()
	var stale []*worker
	if now.Sub(p.lastClean) > workerIdle/2 {
		p.lastClean = now
		stale = p.takeIdleLocked(now)
	}
	var w *worker
	if n := len(p.ready); n > 0 && !p.closed {
		w = p.ready[n-1]
		p.ready[n-1] = nil
		p.ready = p.ready[:n-1]
	}
	p.mu.Unlock()
	for _, s := range stale {
		close(s.jobs)
	}
	if w == nil {
		w = &worker{jobs: make(chan func(), 1)}
		go p.loop(w)
	}
	w.jobs <- f
}

// takeIdleLocked removes and returns the workers idle since before
// now - workerIdle.
func (p *workers) takeIdleLocked(now time.Time) []*worker {
	n := 0
	for n < len(p.ready) && now.Sub(p.ready[n].idleAt) > workerIdle {
		n++
	}
	if n == 0 {
		return nil
	}
	stale := make([]*worker, n)
	copy(stale, p.ready[:n])
	k := copy(p.ready, p.ready[n:])
	clear(p.ready[k:])
	p.ready = p.ready[:k]
	return stale
}

func (p *workers) loop(w *worker) {
	for f := range w.jobs {
		f()
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		w.idleAt = time.Now()
		p.ready = append(p.ready, w)
		p.mu.Unlock()
	}
}

// close lets every idle worker go; busy ones leave when their job is done.
// Later runs still work, on goroutines of their own.
func (p *workers) close() {
	p.mu.Lock()
	p.closed = true
	idle := p.ready
	p.ready = nil
	p.mu.Unlock()
	for _, w := range idle {
		close(w.jobs)
	}
}
