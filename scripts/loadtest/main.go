// Command loadtest drives a running gateway for scripts/bench: a load run
// (initialize, tools/list and three tools/call requests, each at several
// concurrencies for a bounded time) and a stream run (many GET event
// streams held open, then closed, checking goroutines and RSS return to
// baseline). It prints Markdown tables. Traffic goes only to the URLs it is
// given, which scripts/bench points at 127.0.0.1.
//
// Usage:
//
//	loadtest -env-file .dev/env -metrics http://127.0.0.1:9101/metrics [-mode all|load|streams] [flags]
//	loadtest freeport   print a free TCP port on 127.0.0.1
//	loadtest fakebackend [-listen 127.0.0.1:0] [-env-file F]
//	                    serve canned PostgREST/Auth answers (fakebackend.go)
//	loadtest tools -env-file F -gateway NAME=URL,PID,METRICS_URL [-gateway …] -dev-pid P -pg-pid P
//	                    every read tool and write proposal against each
//	                    gateway in alternation (tools.go)
//	loadtest floor -record GATEWAY_URL -token T -upstream FAKE_URL [-listen 127.0.0.1:0]
//	                    serve the gateway's recorded answers from a bare
//	                    net/http handler doing only the upstream reads
//	                    (floor.go)
//
// The gateway's CPU time and memory come from /proc/<pid> (-pid, or the
// process found listening on the gateway's port) and otherwise from its
// process_* metrics; a pid that is this process is refused, so the load
// generator's own CPU, reported in a column of its own, is never counted
// as the gateway's. Exit status: 0 on success, 1 when the error rate is
// above -max-error-rate or the stream run fails, 2 on bad usage.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type options struct {
	envFile, baseURL, token, metricsURL string
	pid                                 int
	header                              bool
	protocol                            string
	mode                                string
	duration                            time.Duration
	concurrency                         string
	scenarios                           string
	repeat                              int
	maxRequests                         int
	ids                                 IDs
	maxErrorRate                        float64
	requestTimeout                      time.Duration
	maxTime                             time.Duration
	stream                              StreamOptions
	rssSlackMiB                         float64
}

// servers are the subcommands that serve until SIGTERM/SIGINT.
var servers = map[string]func(ctx context.Context, args []string, stderr io.Writer) error{
	"fakebackend": fakeBackendCommand,
	"floor":       floorCommand,
}

// errFailed marks a run that completed but did not meet its criteria.
var errFailed = errors.New("run failed its checks")

func main() {
	if len(os.Args) > 1 && os.Args[1] == "freeport" {
		port, err := freePort()
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stdout, port) // the command's output, read by scripts/bench
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "tools" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := toolsCommand(ctx, os.Args[2:], os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadtest tools:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 {
		if serve, ok := servers[os.Args[1]]; ok {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			err := serve(ctx, os.Args[2:], os.Stderr)
			stop()
			if err != nil {
				fmt.Fprintf(os.Stderr, "loadtest %s: %v\n", os.Args[1], err)
				os.Exit(1)
			}
			return
		}
	}
	var o options
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.StringVar(&o.envFile, "env-file", "", "KEY=VALUE settings written by the dev command (GATEWAY_URL, DEMO_TOKEN, DEMO_CLASS_ID)")
	fs.StringVar(&o.baseURL, "url", "", "gateway base URL (overrides GATEWAY_URL of -env-file)")
	fs.StringVar(&o.token, "token", "", "mcp_ bearer token (overrides DEMO_TOKEN of -env-file)")
	fs.StringVar(&o.metricsURL, "metrics", "", "the gateway's metrics URL, e.g. http://127.0.0.1:9101/metrics")
	fs.IntVar(&o.pid, "pid", 0, "gateway process id (0: the process listening on the gateway's port)")
	fs.StringVar(&o.mode, "mode", "all", "what to run: all, load or streams")
	fs.StringVar(&o.protocol, "protocol-version", "2025-06-18", "MCP-Protocol-Version sent with every request (\"\": none, the server's default revision)")
	fs.BoolVar(&o.header, "header", true, "print the machine and the gateway's address and pid first")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "length of each scenario at each concurrency")
	fs.StringVar(&o.concurrency, "concurrency", "1,10,50", "comma-separated concurrencies")
	fs.StringVar(&o.scenarios, "scenarios", "", "comma-separated scenario names (default: initialize,tools/list,get_submission,get_help_request,search_discussion_threads; also get_assignment, unauthenticated, reply_to_help_request: a write proposal, needing GATEWAY_WRITE_TOOLS=on and -max-requests within GATEWAY_WRITE_MAX_PENDING)")
	fs.IntVar(&o.repeat, "repeat", 1, "repeats of the whole load run; figures are medians over repeats")
	fs.IntVar(&o.maxRequests, "max-requests", 200_000, "bound on requests per scenario run")
	fs.IntVar(&o.ids.Class, "class", 1, "class id of the tool calls (seed: 1)")
	fs.IntVar(&o.ids.Submission, "submission", 3, "submission id for get_submission (seed: 3, six files)")
	fs.IntVar(&o.ids.HelpRequest, "help-request", 1, "help request id for get_help_request (seed: 1)")
	fs.IntVar(&o.ids.Assignment, "assignment", 1, "assignment id for get_assignment (seed: 1)")
	fs.Float64Var(&o.maxErrorRate, "max-error-rate", 0.01, "fail when more than this fraction of a row's requests fail")
	fs.DurationVar(&o.requestTimeout, "request-timeout", 30*time.Second, "timeout of one load request")
	fs.DurationVar(&o.maxTime, "max-time", 30*time.Minute, "bound on the whole run")
	fs.IntVar(&o.stream.Streams, "streams", 1000, "event streams to hold open in the stream run")
	fs.DurationVar(&o.stream.Hold, "hold", 3*time.Second, "how long the streams stay open")
	fs.IntVar(&o.stream.OpenParallel, "open-parallel", 50, "streams being opened at once")
	fs.DurationVar(&o.stream.Settle, "settle", 30*time.Second, "how long the gateway may take to return to baseline after close")
	fs.Float64Var(&o.stream.GoroutineSlack, "goroutine-slack", 10, "goroutines above baseline still counted as baseline")
	fs.Float64Var(&o.rssSlackMiB, "rss-slack-mib", 16, "RSS above baseline (MiB) always counted as baseline")
	fs.IntVar(&o.stream.NudgeRequests, "nudge-requests", 16, "padded pings per poll after close, so the gateway's GC runs (0: none)")
	fs.IntVar(&o.stream.NudgeBytes, "nudge-bytes", 1<<20, "padding of each nudge ping")
	fs.Float64Var(&o.stream.RSSGrowthFraction, "rss-growth-fraction", 0.25, "fraction of the RSS growth while open that may remain after close")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	o.stream.RSSSlack = o.rssSlackMiB * (1 << 20)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, o, os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, errFailed):
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, stdout, stderr io.Writer) error {
	o, err := withEnvFile(o)
	if err != nil {
		return err
	}
	concs, err := parseInts(o.concurrency)
	if err != nil {
		return fmt.Errorf("-concurrency: %w", err)
	}
	scenarios, err := pickScenarios(Scenarios(o.ids, cmpOr(o.protocol, "2025-06-18")), o.scenarios)
	if err != nil {
		return err
	}
	if o.mode != "all" && o.mode != "load" && o.mode != "streams" {
		return fmt.Errorf("-mode must be all, load or streams (got %q)", o.mode)
	}
	ctx, cancel := context.WithTimeout(ctx, o.maxTime)
	defer cancel()

	u, err := url.Parse(strings.TrimRight(o.baseURL, "/"))
	if err != nil || u.Host == "" {
		return fmt.Errorf("bad gateway URL %q", o.baseURL)
	}
	probe, err := gatewayProbe(u, o, stderr)
	if err != nil {
		return err
	}
	if o.header {
		WriteMachine(stdout, hostMachine())
		fmt.Fprintf(stdout, "Gateway %s (pid %s), metrics %s.\n\n", u.Redacted(), pidText(probe.PID), cmpOr(o.metricsURL, "not used"))
	}

	endpoint := u.String() + "/functions/v1/mcp-server"
	failed := false
	if o.mode != "streams" {
		if failed, err = runLoads(ctx, o, endpoint, probe, scenarios, concs, stdout, stderr); err != nil {
			return err
		}
	}
	if o.mode != "load" {
		passed, err := runStreamMode(ctx, o, endpoint, probe, stdout, stderr)
		if err != nil {
			return err
		}
		failed = failed || !passed
	}
	if failed {
		fmt.Fprintln(stderr, "loadtest: FAILED (see the tables)")
		return errFailed
	}
	return nil
}

// withEnvFile fills the gateway URL and token from -env-file where the
// flags leave them unset, and refuses options without them.
func withEnvFile(o options) (options, error) {
	if o.envFile != "" {
		data, err := os.ReadFile(o.envFile)
		if err != nil {
			return o, err
		}
		env, err := ParseEnvFile(data)
		if err != nil {
			return o, fmt.Errorf("%s: %w", o.envFile, err)
		}
		o.baseURL = cmpOr(o.baseURL, env["GATEWAY_URL"])
		o.token = cmpOr(o.token, env["DEMO_TOKEN"])
	}
	if o.baseURL == "" || (o.token == "" && o.scenarios != "unauthenticated") {
		return o, errors.New("need the gateway URL and a token: -env-file, or -url and -token")
	}
	return o, nil
}

// gatewayProbe measures the gateway's process: -pid, or the process
// listening on the URL's port, or else its process_* metrics.
func gatewayProbe(u *url.URL, o options, stderr io.Writer) (*Probe, error) {
	probe := &Probe{PID: o.pid, MetricsURL: o.metricsURL, Client: &http.Client{Timeout: 10 * time.Second}}
	if probe.PID == 0 {
		if port, err := strconv.Atoi(u.Port()); err == nil {
			if pid, err := FindListenerPID(port); err == nil {
				probe.PID = pid
			} else {
				fmt.Fprintf(stderr, "loadtest: %v; using the gateway's process_* metrics for CPU and RSS\n", err)
			}
		}
	}
	if probe.PID == os.Getpid() {
		// Its CPU and memory would be reported as the gateway's.
		return nil, fmt.Errorf("the gateway's pid %d is this load generator's own process; run the gateway as a process of its own", probe.PID)
	}
	return probe, nil
}

// runLoads runs every scenario at every concurrency, o.repeat times
// interleaved, and writes the medians; failed when a row has no request
// or too many errors.
func runLoads(ctx context.Context, o options, endpoint string, probe *Probe, scenarios []Scenario, concs []int, stdout, stderr io.Writer) (failed bool, err error) {
	maxConc := 1
	for _, c := range concs {
		maxConc = max(maxConc, c)
	}
	client := newLoadClient(maxConc, o.requestTimeout)
	defer client.CloseIdleConnections()
	t := Target{Endpoint: endpoint, Token: o.token, Client: client, ProtocolVersion: o.protocol}
	for _, sc := range scenarios {
		if err := t.Preflight(ctx, sc); err != nil {
			return false, fmt.Errorf("preflight: %w", err)
		}
	}
	runs := map[string][]LoadResult{}
	var order []string
	for rep := range o.repeat {
		for _, sc := range scenarios {
			for _, c := range concs {
				if ctx.Err() != nil {
					return false, ctx.Err()
				}
				fmt.Fprintf(stderr, "loadtest: run %d/%d %s at concurrency %d for %s\n", rep+1, o.repeat, sc.Name, c, o.duration)
				r, err := RunLoad(ctx, t, probe, sc, LoadOptions{Concurrency: c, Duration: o.duration, MaxRequests: o.maxRequests})
				if err != nil {
					return false, err
				}
				key := sc.Name + "@" + strconv.Itoa(c)
				if _, ok := runs[key]; !ok {
					order = append(order, key)
				}
				runs[key] = append(runs[key], r)
			}
		}
	}
	rows := make([]Merged, 0, len(order))
	for _, k := range order {
		m := MergeRepeats(runs[k])
		rows = append(rows, m)
		if m.Requests == 0 || float64(m.Errors) > o.maxErrorRate*float64(m.Requests) {
			failed = true
		}
	}
	fmt.Fprintf(stdout, "### Load run (%s per row per repeat, %d repeat(s); figures are medians over repeats)\n\n", o.duration, o.repeat)
	WriteLoadTable(stdout, rows)
	if s, err := probe.Snapshot(ctx); err == nil && s.PeakRSS >= 0 {
		fmt.Fprintf(stdout, "\nGateway peak RSS over its lifetime (VmHWM): %.1f MiB.\n", mib(s.PeakRSS))
	}
	fmt.Fprintln(stdout)
	return failed, nil
}

// runStreamMode holds o.stream's event streams open, closes them, and
// writes the table; passed when the gateway returned to its baseline.
func runStreamMode(ctx context.Context, o options, endpoint string, probe *Probe, stdout, stderr io.Writer) (passed bool, err error) {
	tr := &http.Transport{DisableKeepAlives: true, MaxIdleConnsPerHost: -1}
	defer tr.CloseIdleConnections()
	t := Target{Endpoint: endpoint, Token: o.token, Client: &http.Client{Transport: tr}, ProtocolVersion: o.protocol}
	fmt.Fprintf(stderr, "loadtest: stream run: %d streams held %s\n", o.stream.Streams, o.stream.Hold)
	r, err := RunStreams(ctx, t, probe, o.stream)
	if err != nil {
		return false, fmt.Errorf("stream run: %w", err)
	}
	fmt.Fprintf(stdout, "### Stream run (%d event streams held %s)\n\n", o.stream.Streams, o.stream.Hold)
	WriteStreamTable(stdout, r)
	fmt.Fprintln(stdout)
	return r.Passed(), nil
}

func pidText(pid int) string {
	if pid == 0 {
		return "unknown"
	}
	return strconv.Itoa(pid)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("want positive whole numbers, got %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func pickScenarios(all []Scenario, names string) ([]Scenario, error) {
	if names == "" {
		names = strings.Join(defaultScenarios, ",")
	}
	var out []Scenario
	for _, n := range strings.Split(names, ",") {
		found := false
		for _, sc := range all {
			if sc.Name == strings.TrimSpace(n) {
				out = append(out, sc)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown scenario %q", n)
		}
	}
	return out, nil
}

// ParseEnvFile reads KEY=VALUE lines as the dev command writes them:
// values are bare or single-quoted with '\” for a quote. Blank lines and
// lines starting with # are skipped.
func ParseEnvFile(data []byte) (map[string]string, error) {
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("line %d: want KEY=VALUE", n)
		}
		val, err := unquoteShell(v)
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", n, k, err)
		}
		env[k] = val
	}
	return env, sc.Err()
}

// unquoteShell undoes single-quoting: 'a'\”b' is a'b.
func unquoteShell(v string) (string, error) {
	var b strings.Builder
	for len(v) > 0 {
		switch {
		case v[0] == '\'':
			end := strings.IndexByte(v[1:], '\'')
			if end < 0 {
				return "", errors.New("unterminated single quote")
			}
			b.WriteString(v[1 : 1+end])
			v = v[2+end:]
		case strings.HasPrefix(v, `\'`):
			b.WriteByte('\'')
			v = v[2:]
		default:
			i := strings.IndexAny(v, `'\`)
			if i < 0 {
				i = len(v)
			} else if i == 0 {
				return "", fmt.Errorf("unexpected %q", v[:1])
			}
			b.WriteString(v[:i])
			v = v[i:]
		}
	}
	return b.String(), nil
}

func hostMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), Model: "unknown"}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.Model = ParseCPUModel(data)
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemTotal = ParseMemTotal(data)
	}
	return m
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
