// Package pgcluster starts and stops a throwaway PostgreSQL 15 cluster for tests
// and local development.
//
// A cluster listens only on 127.0.0.1 (its unix socket lives inside the cluster
// directory), trusts the superuser `postgres` on loopback, and runs with
// fsync, full_page_writes and synchronous_commit off: it trades durability for
// start-up and test speed, so never point it at data you want to keep.
//
// The package is deliberately generic: it creates no Supabase roles or schemas.
// The Supabase bootstrap (roles anon/authenticated/service_role/authenticator,
// schema auth with auth.uid()/auth.role()/auth.jwt()) is applied by
// package dbsetup (ApplyBootstrap / ApplyAll).
//
// Process lifetime: the postmaster is a direct child of the calling process,
// started with a Linux parent-death signal (SIGQUIT, PostgreSQL's "immediate
// shutdown"), so it dies when the parent dies even if the parent is killed with
// SIGKILL; its backends exit when they notice the postmaster is gone. Only the
// temporary directory is left behind in that case (Stop removes it normally).
//
// When the process runs as root (as in CI containers) PostgreSQL refuses to
// start, so initdb and postgres run as the unprivileged `postgres` user that
// Debian's postgresql package creates; the cluster directory is handed to that
// user.
package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// debianBinDir is where Debian's postgresql-15 package installs its server
// binaries; it is tried before `pg_config --bindir`.
const debianBinDir = "/usr/lib/postgresql/15/bin"

// Bounds on the waits this package performs; each is far above what a healthy
// machine needs, so hitting one means something is wrong.
const (
	initdbTimeout   = 2 * time.Minute
	readyTimeout    = 60 * time.Second
	stopTimeout     = 15 * time.Second
	startAttempts   = 3    // retries when a picked free port is taken in between
	logTailBytes    = 4096 // how much of the server log an error quotes
	unprivilegedUsr = "postgres"
)

// ErrNoBinaries is returned (wrapped) when the PostgreSQL server binaries cannot
// be found.
var ErrNoBinaries = errors.New("pgcluster: PostgreSQL 15 server binaries not found; install Debian's `postgresql` package (apt-get install postgresql) or put pg_config on PATH")

// Options configures Start. The zero value is valid.
type Options struct {
	// Port is the TCP port on 127.0.0.1. 0 picks a free loopback port.
	Port int
	// Dir is the cluster directory. "" creates a fresh temporary directory
	// that Stop removes. A non-empty Dir is kept by Stop; if it already holds
	// an initialised cluster (dir/data/PG_VERSION), that cluster is reused.
	// The unix socket lives in Dir/sock, and unix socket paths are limited
	// to about 100 bytes, so keep Dir short.
	Dir string
	// Logger receives progress messages and the server's log on failure.
	// nil discards them.
	Logger *slog.Logger
	// BinDir overrides binary discovery (the directory holding initdb and
	// postgres). "" means auto-detect.
	BinDir string
	// NoTemplateCache disables the initdb template cache (see template.go):
	// by default a pristine data directory is kept under the user cache
	// directory and copied instead of running initdb again.
	NoTemplateCache bool
}

// Cluster is a running PostgreSQL server. Its methods are safe for concurrent
// use.
type Cluster struct {
	port    int
	dir     string
	tempDir bool
	logger  *slog.Logger
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the postmaster process has exited
	waitErr error         // valid after exited is closed
	logPath string

	stopOnce sync.Once
	stopErr  error
}

// Start initialises (if needed) and starts a cluster and waits until it accepts
// connections. The returned cluster must be stopped with Stop.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	binDir, err := findBinDir(ctx, opts.BinDir)
	if err != nil {
		return nil, err
	}
	cred, err := credentialFor()
	if err != nil {
		return nil, err
	}

	dir := opts.Dir
	tempDir := dir == ""
	if tempDir {
		dir, err = os.MkdirTemp("", "pgcluster-")
		if err != nil {
			return nil, fmt.Errorf("pgcluster: create temp dir: %w", err)
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pgcluster: create dir %q: %w", dir, err)
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	cleanup := func() {
		if tempDir {
			_ = os.RemoveAll(dir)
		}
	}
	if cred != nil {
		if err := handOver(dir, cred, logger); err != nil {
			cleanup()
			return nil, err
		}
	}

	c := &Cluster{dir: dir, tempDir: tempDir, logger: logger, logPath: filepath.Join(dir, "postgres.log")}
	dataDir := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); err != nil {
		tmpl := ""
		if !opts.NoTemplateCache {
			tmpl = templateDir(ctx, binDir)
		}
		if !fromTemplate(tmpl, dataDir, cred, logger) {
			if err := initdb(ctx, binDir, dataDir, cred, logger); err != nil {
				cleanup()
				return nil, err
			}
			publishTemplate(tmpl, dataDir, logger)
		}
	}
	sockDir := filepath.Join(dir, "sock")
	if err := os.MkdirAll(sockDir, 0o700); err != nil {
		cleanup()
		return nil, fmt.Errorf("pgcluster: create socket dir: %w", err)
	}
	if cred != nil {
		if err := os.Chown(sockDir, int(cred.Uid), int(cred.Gid)); err != nil {
			cleanup()
			return nil, fmt.Errorf("pgcluster: chown socket dir: %w", err)
		}
	}

	var lastErr error
	for attempt := 0; attempt < startAttempts; attempt++ {
		port := opts.Port
		if port == 0 {
			if port, err = freePort(); err != nil {
				cleanup()
				return nil, err
			}
		}
		c.port = port
		lastErr = c.launch(ctx, binDir, dataDir, sockDir, cred)
		if lastErr == nil {
			logger.Info("pgcluster started", "port", port, "dir", dir)
			return c, nil
		}
		// Only a race on an auto-picked port is worth another attempt.
		if opts.Port != 0 || !strings.Contains(lastErr.Error(), "could not bind") && !strings.Contains(lastErr.Error(), "already in use") {
			break
		}
		logger.Warn("pgcluster port taken, retrying", "port", port)
	}
	cleanup()
	return nil, lastErr
}

// launch starts the postmaster on c.port and waits until it accepts
// connections or exits.
func (c *Cluster) launch(ctx context.Context, binDir, dataDir, sockDir string, cred *syscall.Credential) error {
	logFile, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("pgcluster: open log: %w", err)
	}
	defer logFile.Close() // the child keeps its own descriptor
	args := []string{
		"-D", dataDir,
		"-p", strconv.Itoa(c.port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=" + sockDir,
		"-c", "fsync=off",
		"-c", "full_page_writes=off",
		"-c", "synchronous_commit=off",
		"-c", "max_connections=200",
		"-c", "shared_buffers=32MB",
		"-c", "logging_collector=off",
		"-c", "log_min_messages=warning",
		"-c", "timezone=UTC",
		"-c", "log_timezone=UTC",
	}
	// Not exec.CommandContext: the server must outlive Start's context.
	cmd := exec.Command(filepath.Join(binDir, "postgres"), args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Dir = c.dir
	cmd.Env = []string{"LC_ALL=C", "TZ=UTC", "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// SIGQUIT is PostgreSQL's immediate shutdown; Go applies the
		// parent-death signal after switching credentials, so it survives
		// the drop to the postgres user.
		Pdeathsig:  syscall.SIGQUIT,
		Setpgid:    true, // keep terminal signals (Ctrl-C) for the parent's own handling
		Credential: cred,
	}
	// Linux delivers the parent-death signal when the *thread* that forked
	// the child exits, not the process. Start and wait from one goroutine
	// locked to its thread, so that thread lives exactly as long as the
	// server and the signal fires only when the whole process dies.
	c.cmd = cmd
	c.exited = make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			c.waitErr = err
			close(c.exited)
			return
		}
		started <- nil
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("pgcluster: start postgres: %w", err)
	}

	deadline := time.Now().Add(readyTimeout)
	superuser := c.SuperuserURL("postgres")
	for {
		pingCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(pingCtx, superuser)
		if err == nil {
			_ = conn.Close(pingCtx)
			cancel()
			return nil
		}
		cancel()
		select {
		case <-c.exited:
			return fmt.Errorf("pgcluster: postgres exited during start-up (%v); log tail:\n%s", c.waitErr, c.logTail())
		case <-ctx.Done():
			c.kill()
			return fmt.Errorf("pgcluster: waiting for postgres: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.kill()
			return fmt.Errorf("pgcluster: postgres not ready after %s (last error: %v); log tail:\n%s", readyTimeout, err, c.logTail())
		}
	}
}

// Port returns the TCP port the server listens on at 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// Dir returns the cluster directory (data in Dir()/data, socket in Dir()/sock).
func (c *Cluster) Dir() string { return c.dir }

// SuperuserURL returns a connection URL for the trusted superuser `postgres`
// and the given database.
func (c *Cluster) SuperuserURL(database string) string {
	return c.URL("postgres", "", database)
}

// URL returns a connection URL for an arbitrary role (e.g. PostgREST's
// `authenticator`) and database. password may be empty: loopback connections
// are trusted, so it is only carried along for clients that insist on one.
func (c *Cluster) URL(user, password, database string) string {
	u := url.URL{
		Scheme:   "postgres",
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	if password != "" {
		u.User = url.UserPassword(user, password)
	} else {
		u.User = url.User(user)
	}
	return u.String()
}

// CreateDatabase creates a database owned by `postgres`, cloned from
// template1. It fails if the database already exists.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) error {
	if name == "" {
		return errors.New("pgcluster: empty database name")
	}
	conn, err := pgx.Connect(ctx, c.SuperuserURL("postgres"))
	if err != nil {
		return fmt.Errorf("pgcluster: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("pgcluster: create database %q: %w", name, err)
	}
	return nil
}

// Pause stops every process of the server (SIGSTOP to the postmaster,
// then to each of its children: the backends start sessions of their own,
// so no process group holds them all), as a database that stops answering
// without closing a connection; Resume lets them run again. For tests of
// what clients do meanwhile. Linux only (/proc).
func (c *Cluster) Pause() error { return c.signalAll(syscall.SIGSTOP) }

// Resume continues a paused server.
func (c *Cluster) Resume() error { return c.signalAll(syscall.SIGCONT) }

func (c *Cluster) signalAll(sig syscall.Signal) error {
	if c.cmd == nil || c.cmd.Process == nil {
		return errors.New("pgcluster: the server is not running")
	}
	pid := c.cmd.Process.Pid
	if sig == syscall.SIGSTOP { // no new backend is forked once it stops
		if err := syscall.Kill(pid, sig); err != nil {
			return err
		}
	}
	children, err := childProcesses(pid)
	if err != nil {
		return err
	}
	for _, child := range children {
		_ = syscall.Kill(child, sig) // one may have exited meanwhile
	}
	if sig != syscall.SIGSTOP {
		return syscall.Kill(pid, sig)
	}
	return nil
}

// childProcesses lists the processes whose parent is pid, from /proc.
func childProcesses(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		_, rest, ok := strings.Cut(string(stat[bytes.LastIndexByte(stat, ')')+1:]), " ")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out, nil
}

// Stop shuts the server down (PostgreSQL "fast" shutdown, escalating to
// SIGKILL after a bound) and removes the cluster directory if Start created
// it. It is idempotent and returns the same result on every call.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		if c.cmd != nil && c.cmd.Process != nil {
			select {
			case <-c.exited:
			default:
				_ = c.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
				select {
				case <-c.exited:
				case <-time.After(stopTimeout):
					c.logger.Warn("pgcluster fast shutdown timed out; killing", "pid", c.cmd.Process.Pid)
					c.kill()
				}
			}
		}
		if c.tempDir {
			if err := os.RemoveAll(c.dir); err != nil {
				c.stopErr = fmt.Errorf("pgcluster: remove %q: %w", c.dir, err)
			}
		}
		c.logger.Info("pgcluster stopped", "port", c.port)
	})
	return c.stopErr
}

// kill ends the postmaster immediately and waits (bounded) for it to exit.
func (c *Cluster) kill() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-c.exited:
	case <-time.After(stopTimeout):
	}
}

// logTail returns the last logTailBytes of the server log.
func (c *Cluster) logTail() string {
	b, err := os.ReadFile(c.logPath)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(b) > logTailBytes {
		b = b[len(b)-logTailBytes:]
	}
	return string(b)
}

// findBinDir locates the directory holding initdb and postgres.
func findBinDir(ctx context.Context, override string) (string, error) {
	candidates := []string{}
	if override != "" {
		candidates = append(candidates, override)
	} else {
		candidates = append(candidates, debianBinDir)
		if pgConfig, err := exec.LookPath("pg_config"); err == nil {
			out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output()
			if err == nil {
				candidates = append(candidates, strings.TrimSpace(string(out)))
			}
		}
	}
	for _, d := range candidates {
		if isExecutable(filepath.Join(d, "postgres")) && isExecutable(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w (looked in %s)", ErrNoBinaries, strings.Join(candidates, ", "))
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// credentialFor returns the credential to run PostgreSQL under: nil when the
// process is not root, the `postgres` user's otherwise.
func credentialFor() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(unprivilegedUsr)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: running as root and user %q does not exist (install Debian's `postgresql` package, which creates it): %w", unprivilegedUsr, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("pgcluster: user %q: %w", unprivilegedUsr, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: false}, nil
}

// handOver gives the cluster directory to the unprivileged user and makes
// sure that user can traverse every ancestor directory. Ancestors missing the
// search bit for "other" get it added (search only, never read), which is the
// least change that lets a dropped-privilege server reach its data.
func handOver(dir string, cred *syscall.Credential, logger *slog.Logger) error {
	if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
		return fmt.Errorf("pgcluster: chown %q: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("pgcluster: chmod %q: %w", dir, err)
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("pgcluster: stat %q: %w", p, err)
		}
		if st.Mode().Perm()&0o001 == 0 {
			sys, ok := st.Sys().(*syscall.Stat_t)
			ownedOrGroup := ok && (sys.Uid == cred.Uid && st.Mode().Perm()&0o100 != 0 || sys.Gid == cred.Gid && st.Mode().Perm()&0o010 != 0)
			if !ownedOrGroup {
				logger.Warn("pgcluster adding o+x so the postgres user can reach its data", "dir", p)
				if err := os.Chmod(p, st.Mode().Perm()|0o001); err != nil {
					return fmt.Errorf("pgcluster: chmod o+x %q: %w", p, err)
				}
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// initdb creates the data directory with trust authentication for the
// superuser `postgres`.
func initdb(ctx context.Context, binDir, dataDir string, cred *syscall.Credential, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, initdbTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"), append([]string{"-D", dataDir}, initdbArgs...)...)
	cmd.Env = []string{"LC_ALL=C", "TZ=UTC", "PATH=" + os.Getenv("PATH")}
	cmd.Dir = filepath.Dir(dataDir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pgcluster: initdb: %w: %s", err, tail(out.Bytes()))
	}
	logger.Debug("pgcluster initdb done", "elapsed", time.Since(start))
	return nil
}

func tail(b []byte) string {
	if len(b) > logTailBytes {
		b = b[len(b)-logTailBytes:]
	}
	return string(b)
}

// freePort asks the kernel for a free loopback port. Another process may take
// it before postgres binds, which Start handles by retrying.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgcluster: pick port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
