package gatewaytest

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

// Lazy is a test package's stack started on first use, for packages whose
// unit tests (or -run selections of them) should not pay for one:
//
//	var stack gatewaytest.Lazy
//
//	func TestMain(m *testing.M) { gatewaytest.MainLazy(m, &stack) }
//
//	func TestRLS(t *testing.T) {
//		env := stack.Env(t)
//		…
//	}
//
// Like Main, it uses the real stack named by GATEWAY_TEST_SUPABASE_URL
// when that is set, and otherwise one local stack for the whole package.
// The zero value is ready to use.
type Lazy struct {
	once sync.Once
	env  *Env
	err  error
}

// Env returns the package's stack, starting it on the first call. A stack
// that failed to start fails every test that asks for it.
func (l *Lazy) Env(t testing.TB) *Env {
	t.Helper()
	l.once.Do(func() { l.env, l.err = open() })
	if l.err != nil {
		t.Fatalf("gatewaytest: %v", l.err)
	}
	return l.env
}

// Started reports whether Env has been called successfully, and returns
// the stack if so.
func (l *Lazy) Started() (*Env, bool) {
	l.once.Do(func() { l.err = errors.New("the stack was closed before its first use") })
	return l.env, l.env != nil
}

// Close closes the local stack if one was started. Env must not be called
// afterwards.
func (l *Lazy) Close() error {
	if env, ok := l.Started(); ok && env.Stack != nil {
		return env.Stack.Close()
	}
	return nil
}

// MainLazy runs a test package's tests and then closes the stack of l if
// one was started:
//
//	func TestMain(m *testing.M) { gatewaytest.MainLazy(m, &stack) }
func MainLazy(m *testing.M, l *Lazy) {
	code := m.Run()
	if err := l.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "gatewaytest: closing the local stack:", err)
	}
	os.Exit(code)
}
