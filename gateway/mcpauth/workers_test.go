package mcpauth

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWorkersRunEverythingAtOnce(t *testing.T) {
	var p workers
	defer p.close()
	const n = 50
	var started sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	var done sync.WaitGroup
	done.Add(n)
	for range n {
		p.run(func() {
			started.Done()
			<-release
			done.Done()
		})
	}
	started.Wait() // all n run at once: none waits for another
	close(release)
	done.Wait()
	waitUntil(t, "the workers to be idle", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.ready) == n
	})
}

func TestWorkersReuseAndLetGo(t *testing.T) {
	base := runtime.NumGoroutine()
	var p workers
	for range 100 {
		ran := make(chan struct{})
		p.run(func() { close(ran) })
		<-ran
		waitUntil(t, "the worker to be idle", func() bool {
			p.mu.Lock()
			defer p.mu.Unlock()
			return len(p.ready) == 1
		})
	}
	if g := runtime.NumGoroutine(); g > base+1 {
		t.Errorf("%d goroutines after 100 sequential runs, want at most %d (one reused worker)", g, base+1)
	}

	// A worker idle for longer than workerIdle is let go on a later run.
	p.mu.Lock()
	p.ready[0].idleAt = time.Now().Add(-2 * workerIdle)
	p.lastClean = time.Time{}
	p.mu.Unlock()
	ran := make(chan struct{})
	p.run(func() { close(ran) })
	<-ran
	waitUntil(t, "the idle worker to leave", func() bool { return runtime.NumGoroutine() <= base+1 })

	// close lets idle workers go; runs after it still work.
	p.close()
	waitUntil(t, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= base })
	after := make(chan struct{})
	p.run(func() { close(after) })
	<-after
	waitUntil(t, "the post-close worker to leave", func() bool { return runtime.NumGoroutine() <= base })
}
