package devstack

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// StartForTest starts a stack for one test (or benchmark) and closes it in
// tb.Cleanup. A stack costs a few seconds; for one per package use Main.
func StartForTest(tb testing.TB) *Stack {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{})
	if err != nil {
		tb.Fatalf("devstack.Start: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("devstack.Close: %v", err)
		}
	})
	return s
}

// Main runs a test binary with one seeded stack shared by the package:
//
//	var stack *devstack.Stack
//
//	func TestMain(m *testing.M) { devstack.Main(m, func(s *devstack.Stack) { stack = s }) }
//
// It exits the process with m.Run's code (1 when the stack fails to start)
// after closing the stack.
func Main(m *testing.M, use func(*Stack)) {
	os.Exit(runMain(m, use))
}

func runMain(m *testing.M, use func(*Stack)) int {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	s, err := Start(ctx, Options{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "devstack.Main:", err)
		return 1
	}
	defer func() {
		if err := s.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "devstack.Close:", err)
		}
	}()
	use(s)
	return m.Run()
}
