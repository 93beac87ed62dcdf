package pgcluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestStartQueryStop(t *testing.T) {
	start := time.Now()
	c := StartForTest(t)
	t.Logf("cluster ready in %s on port %d", time.Since(start), c.Port())

	ctx := context.Background()
	if err := c.CreateDatabase(ctx, "app-db"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "app-db"); err == nil {
		t.Error("second CreateDatabase of the same name succeeded, want error")
	}
	conn, err := pgx.Connect(ctx, c.SuperuserURL("app-db"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	var got struct {
		db, user, fsync, tz string
		super               bool
	}
	err = conn.QueryRow(ctx, `SELECT current_database(), current_user, current_setting('fsync'),
		current_setting('TimeZone'), (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)`).
		Scan(&got.db, &got.user, &got.fsync, &got.tz, &got.super)
	if err != nil {
		t.Fatal(err)
	}
	if got.db != "app-db" || got.user != "postgres" || got.fsync != "off" || got.tz != "UTC" || !got.super {
		t.Errorf("session = %+v, want app-db/postgres/fsync off/UTC/superuser", got)
	}
	wantURL := fmt.Sprintf("postgres://authenticator:p%%40ss@127.0.0.1:%d/app-db?sslmode=disable", c.Port())
	if got := c.URL("authenticator", "p@ss", "app-db"); got != wantURL {
		t.Errorf("URL() = %q, want %q", got, wantURL)
	}
	if got, want := c.URL("postgres", "", "app-db"), c.SuperuserURL("app-db"); got != want {
		t.Errorf("URL(postgres, \"\", app-db) = %q, want SuperuserURL %q", got, want)
	}
	var version int
	if err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int / 10000`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != 15 {
		t.Errorf("server major version = %d, want 15", version)
	}
}

func TestStopRemovesTempDirAndIsIdempotent(t *testing.T) {
	c, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := c.Dir()
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Stop, stat(%s) err = %v, want not exist", filepath.Base(dir), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, c.SuperuserURL("postgres")); err == nil {
		conn.Close(ctx)
		t.Error("connect after Stop succeeded, want failure")
	}
}

func TestMissingBinaries(t *testing.T) {
	_, err := Start(context.Background(), Options{BinDir: t.TempDir()})
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("Start with empty BinDir: err = %v, want ErrNoBinaries", err)
	}
}

func TestReuseDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	ctx := context.Background()
	c, err := Start(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "kept"); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "PG_VERSION")); err != nil {
		t.Fatalf("Stop removed a caller-provided Dir: %v", err)
	}
	c2, err := Start(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatalf("restart on existing Dir: %v", err)
	}
	defer c2.Stop()
	conn, err := pgx.Connect(ctx, c2.SuperuserURL("kept"))
	if err != nil {
		t.Fatalf("database created before restart is gone: %v", err)
	}
	conn.Close(ctx)
}

// helperEnv makes the test binary act as a process that starts a cluster and
// then waits to be killed (see TestServerDiesWithParent).
const helperEnv = "PGCLUSTER_TEST_HELPER_DIR"

// TestMain runs the helper when helperEnv is set, and the tests otherwise.
// The helper runs from TestMain rather than as a test that skips itself
// when the variable is unset: a skip that every run reports would teach
// readers to ignore the skip count.
func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		helperProcess(dir)
	}
	os.Exit(m.Run())
}

// helperProcess starts a cluster in dir, reports its port and postmaster pid
// on stdout, and waits to be killed; it never returns.
func helperProcess(dir string) {
	c, err := Start(context.Background(), Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stdout, "ERROR", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stdout, "READY", c.Port(), c.cmd.Process.Pid)
	select {} // wait for SIGKILL
}

// TestServerDiesWithParent kills a process that owns a cluster with SIGKILL
// (no Stop, no cleanup) and checks that the server goes away by itself.
func TestServerDiesWithParent(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a helper process")
	}
	dir := filepath.Join(t.TempDir(), "cluster")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading helper output: %v", err)
	}
	var port, pid int
	if _, err := fmt.Sscanf(line, "READY %d %d", &port, &pid); err != nil {
		t.Fatalf("helper said %q: %v", line, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	deadline := time.Now().Add(15 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("postmaster %d still running 15s after its parent was killed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)); err == nil {
		conn.Close(ctx)
		t.Error("server still accepts connections after its parent was killed")
	}
}

// processAlive reports whether pid exists and is not a zombie (an orphaned
// zombie may linger when the container's init does not reap).
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Format: "pid (comm) state ..."; comm may contain spaces, so split at
	// the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// BenchmarkStartStop measures a full cluster life cycle with and without the
// initdb template cache.
func BenchmarkStartStop(b *testing.B) {
	for _, noCache := range []bool{false, true} {
		b.Run(fmt.Sprintf("NoTemplateCache=%v", noCache), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c, err := Start(context.Background(), Options{NoTemplateCache: noCache})
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Stop(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPauseResume: a paused server answers nothing, not even on a
// connection opened before (its backend is stopped too); resumed, the
// same connection answers again.
func TestPauseResume(t *testing.T) {
	c := StartForTest(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.SuperuserURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := c.Pause(); err != nil {
		t.Fatal(err)
	}
	qctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = conn.Exec(qctx, `SELECT 1`)
	cancel()
	if err == nil {
		t.Error("a paused server answered")
	}
	if err := c.Resume(); err != nil {
		t.Fatal(err)
	}
	fresh, err := pgx.Connect(ctx, c.SuperuserURL("postgres"))
	if err != nil {
		t.Fatalf("connecting after Resume: %v", err)
	}
	defer fresh.Close(ctx)
	var one int
	if err := fresh.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Errorf("after Resume: %d, %v", one, err)
	}
}
