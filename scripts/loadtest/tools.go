package main

// The per-tool run (`loadtest tools`, scripts/bench's tools part): every
// read tool and each write proposal, with the seeded arguments that give
// its largest answer, at each concurrency, against one or more gateways in
// alternation (before and after), all on the same local stack. Per row:
// p50 and p90 latency, the gateway's CPU per call, the stack's CPU per call
// (the dev command's process, which serves the REST API and Auth, plus
// PostgreSQL's postmaster and backends) and the upstream requests per call
// by route, read from each gateway's metrics.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// toolCall is one row's call: a tool and its arguments.
type toolCall struct{ name, args string }

// seededToolCalls are the calls of the tools run, in catalogue order: the
// read tools, then the write proposals (supabase/fixtures/SEED.md; the
// token's user is the seed's instructor of class 1). Each reads the
// largest answer the seed has for it.
var seededToolCalls = []toolCall{
	{"get_help_request", `{"help_request_id":1,"class_id":1}`},
	{"get_discussion_thread", `{"thread_id":1,"class_id":1}`},
	{"get_submission", `{"submission_id":3,"class_id":1,"include_files":true,"include_test_output":true}`},
	{"list_submission_files", `{"submission_id":3,"class_id":1}`},
	{"get_submission_files", `{"submission_id":3,"class_id":1}`},
	{"list_submission_tests", `{"submission_id":3,"class_id":1}`},
	{"get_test_output", `{"submission_id":3,"class_id":1,"test_id":11}`},
	{"get_submission_build_output", `{"submission_id":3,"class_id":1}`},
	// The four GitHub tools read the assignment's (or autograder's) row;
	// the dev stack has no GitHub, so their rows measure that read and the
	// answer without the repository's files.
	{"list_grader_files", `{"assignment_id":1,"class_id":1}`},
	{"get_grader_files", `{"assignment_id":1,"class_id":1}`},
	{"list_handout_files", `{"assignment_id":1,"class_id":1}`},
	{"get_handout_files", `{"assignment_id":1,"class_id":1}`},
	{"get_submissions_for_student", `{"student_profile_id":"30000001-0000-4000-8000-000000000003","assignment_id":1,"class_id":1,"include_files":true}`},
	{"get_assignment", `{"assignment_id":1,"class_id":1}`},
	{"search_help_requests", `{"class_id":1,"limit":50}`},
	{"search_discussion_threads", `{"class_id":1,"limit":50}`},
	{"get_rubric", `{"assignment_id":1,"class_id":1}`},
	{"list_student_submissions", `{"student_profile_id":"30000001-0000-4000-8000-000000000003","class_id":1,"include_files":true}`},
	{"search_submissions", `{"assignment_id":1,"class_id":1,"include_inactive":true}`},
	{"list_regrade_requests", `{"class_id":1,"status":"all"}`},
	{"get_grading_progress", `{"assignment_id":1,"class_id":1}`},
	{"get_help_queue_overview", `{"class_id":1}`},
	{"get_student_overview", `{"student_profile_id":"30000001-0000-4000-8000-000000000003","class_id":1,"limit":20}`},
	{"get_regrade_request", `{"regrade_request_id":2,"class_id":1}`},
	{"reply_to_help_request", `{"class_id":1,"help_request_id":1,"message":"bench proposal"}`},
	{"set_help_request_status", `{"class_id":1,"help_request_id":1,"status":"in_progress"}`},
	{"reply_to_discussion_thread", `{"class_id":1,"thread_id":1,"body":"bench proposal"}`},
	{"comment_on_regrade_request", `{"class_id":1,"regrade_request_id":2,"message":"bench proposal"}`},
	{"decide_regrade_request", `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"bench proposal"}`},
	{"add_rubric_comment", `{"class_id":1,"submission_id":3,"rubric_check_id":3,"comment":"bench proposal","file_id":6,"line":2}`},
}

// writeTools are the proposals among seededToolCalls: each stores a
// pending action, of which one person may keep a bounded number.
var writeTools = map[string]bool{"reply_to_help_request": true, "set_help_request_status": true,
	"reply_to_discussion_thread": true, "comment_on_regrade_request": true, "decide_regrade_request": true, "add_rubric_comment": true}

// benchGateway is one gateway process under test.
type benchGateway struct {
	name, url, metricsURL string
	pid                   int
}

// parseBenchGateway reads NAME=URL,PID,METRICS_URL.
func parseBenchGateway(s string) (benchGateway, error) {
	name, rest, ok := strings.Cut(s, "=")
	parts := strings.Split(rest, ",")
	if !ok || name == "" || len(parts) != 3 {
		return benchGateway{}, fmt.Errorf("-gateway %q: want NAME=URL,PID,METRICS_URL", s)
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return benchGateway{}, fmt.Errorf("-gateway %q: bad pid", s)
	}
	return benchGateway{name: name, url: strings.TrimRight(parts[0], "/"), pid: pid, metricsURL: parts[2]}, nil
}

// gatewayFlags collects repeated -gateway flags.
type gatewayFlags []benchGateway

func (g *gatewayFlags) String() string { return fmt.Sprint(len(*g)) }
func (g *gatewayFlags) Set(s string) error {
	bg, err := parseBenchGateway(s)
	if err == nil {
		*g = append(*g, bg)
	}
	return err
}

// toolsOptions configure `loadtest tools`.
type toolsOptions struct {
	token, databaseURL string
	gateways           gatewayFlags
	devPID, pgPID      int
	concs              []int
	duration           time.Duration
	rounds             int
	maxWrites          int
	only               map[string]bool
}

// toolsCommand runs `loadtest tools` and prints its Markdown report.
func toolsCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o toolsOptions
	fs := flag.NewFlagSet("loadtest tools", flag.ContinueOnError)
	envFile := fs.String("env-file", "", "the dev command's settings (DEMO_TOKEN, DATABASE_URL)")
	fs.Var(&o.gateways, "gateway", "NAME=URL,PID,METRICS_URL of a gateway to measure (repeat: run in alternation)")
	fs.IntVar(&o.devPID, "dev-pid", 0, "pid of the dev command (the REST API and Auth)")
	fs.IntVar(&o.pgPID, "pg-pid", 0, "pid of PostgreSQL's postmaster")
	conc := fs.String("concurrency", "1,10", "comma-separated concurrencies")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "length of one row")
	fs.IntVar(&o.rounds, "rounds", 2, "rounds of alternation; figures are medians over rounds")
	fs.IntVar(&o.maxWrites, "max-writes", 60, "bound on proposals per row (the pending actions are cleared before each)")
	tools := fs.String("tools", "", "comma-separated tools (default: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	env := map[string]string{}
	if *envFile != "" {
		data, err := os.ReadFile(*envFile)
		if err != nil {
			return err
		}
		if env, err = ParseEnvFile(data); err != nil {
			return err
		}
	}
	o.token, o.databaseURL = env["DEMO_TOKEN"], env["DATABASE_URL"]
	var err error
	if o.concs, err = parseInts(*conc); err != nil {
		return fmt.Errorf("-concurrency: %w", err)
	}
	if len(o.gateways) == 0 || o.token == "" || o.devPID == 0 || o.pgPID == 0 {
		return errors.New("need -env-file (with DEMO_TOKEN), at least one -gateway, -dev-pid and -pg-pid")
	}
	if *tools != "" {
		o.only = map[string]bool{}
		for _, t := range strings.Split(*tools, ",") {
			o.only[strings.TrimSpace(t)] = true
		}
	}
	return runTools(ctx, o, stdout, stderr)
}

// toolSample is one row run: one tool, one gateway, one concurrency.
type toolSample struct {
	calls, errs    int
	firstErr       string
	p50, p90       time.Duration
	gatewayCPU     float64 // seconds per call
	stackCPU       float64 // seconds per call
	restCPU        float64 // the dev command's share of stackCPU
	upstreamRoutes map[string]float64
}

// runTools runs every call at every concurrency on every gateway, the
// gateways alternating within each round, and writes the table.
func runTools(ctx context.Context, o toolsOptions, stdout, stderr io.Writer) error {
	client := newLoadClient(slices.Max(o.concs), 30*time.Second)
	defer client.CloseIdleConnections()
	var calls []toolCall
	for _, tc := range seededToolCalls {
		if o.only == nil || o.only[tc.name] {
			calls = append(calls, tc)
		}
	}
	samples := map[string][]toolSample{} // tool@conc@gateway → rounds
	skipped := map[string]string{}
	for round := range o.rounds {
		for _, tc := range calls {
			for _, c := range o.concs {
				for _, g := range o.gateways {
					key := fmt.Sprintf("%s@%d@%s", tc.name, c, g.name)
					if _, skip := skipped[tc.name+"@"+g.name]; skip {
						continue
					}
					fmt.Fprintf(stderr, "loadtest tools: round %d/%d %s at %d on %s\n", round+1, o.rounds, tc.name, c, g.name)
					s, err := measureTool(ctx, o, g, client, tc, c)
					if err != nil {
						skipped[tc.name+"@"+g.name] = err.Error()
						continue
					}
					samples[key] = append(samples[key], s)
				}
			}
		}
	}
	writeToolsTable(stdout, o, calls, samples, skipped)
	return nil
}

// measureTool runs one row and reads the counters around it.
func measureTool(ctx context.Context, o toolsOptions, g benchGateway, client *http.Client, tc toolCall, conc int) (toolSample, error) {
	sc := Scenario{Name: tc.name, Tool: true, Write: writeTools[tc.name],
		Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tc.name + `","arguments":` + tc.args + `}}`)}
	t := Target{Endpoint: g.url + "/functions/v1/mcp-server", Token: o.token, Client: client, ProtocolVersion: "2025-06-18"}
	limit := int64(1 << 30)
	if sc.Write {
		if err := clearPending(ctx, o.databaseURL); err != nil {
			return toolSample{}, err
		}
		limit = int64(o.maxWrites)
	}
	if err := t.Preflight(ctx, sc); err != nil {
		return toolSample{}, err
	}
	probe := &Probe{PID: g.pid, MetricsURL: g.metricsURL, Client: client}
	routesBefore, err := upstreamRoutes(ctx, probe)
	if err != nil {
		return toolSample{}, err
	}
	gwBefore, err1 := ProcCPU(g.pid)
	restBefore, _ := ProcCPU(o.devPID)
	stackBefore, err2 := stackCPU(o.devPID, o.pgPID)
	if err := errors.Join(err1, err2); err != nil {
		return toolSample{}, err
	}
	runCtx, cancel := context.WithTimeout(ctx, o.duration)
	var issued atomic.Int64
	var ta tally
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() { loadWorker(runCtx, t, sc, &issued, limit, &ta) })
	}
	wg.Wait()
	cancel()
	gwAfter, err1 := ProcCPU(g.pid)
	restAfter, _ := ProcCPU(o.devPID)
	stackAfter, err2 := stackCPU(o.devPID, o.pgPID)
	routesAfter, err3 := upstreamRoutes(ctx, probe)
	if err := errors.Join(err1, err2, err3); err != nil {
		return toolSample{}, err
	}
	n := len(ta.all)
	if n == 0 {
		return toolSample{}, errors.New("no call completed")
	}
	slices.Sort(ta.all)
	s := toolSample{calls: n, errs: ta.errCount, firstErr: ta.firstErr,
		p50: Percentile(ta.all, 50), p90: Percentile(ta.all, 90),
		gatewayCPU: (gwAfter - gwBefore) / float64(n), stackCPU: (stackAfter - stackBefore) / float64(n),
		restCPU:        (restAfter - restBefore) / float64(n),
		upstreamRoutes: map[string]float64{}}
	for route, v := range routesAfter {
		if d := v - routesBefore[route]; d > 0 {
			s.upstreamRoutes[route] = d / float64(n)
		}
	}
	return s, nil
}

// upstreamRoutes reads gateway_upstream_requests_total by route
// ("postgrest:<table or rpc/fn>", "auth:<class>").
func upstreamRoutes(ctx context.Context, p *Probe) (map[string]float64, error) {
	m, err := p.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range m {
		if s.Name == "gateway_upstream_requests_total" {
			out[s.Labels["upstream"]+":"+s.Labels["endpoint"]] += s.Value
		}
	}
	return out, nil
}

// stackCPU is the CPU seconds of the dev command's own process (the REST
// API and Auth) and of PostgreSQL: the postmaster with the backends it has
// reaped (cutime, cstime) plus every live backend.
func stackCPU(devPID, pgPID int) (float64, error) {
	dev, err := ProcCPU(devPID)
	if err != nil {
		return 0, err
	}
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pgPID), "stat"))
	if err != nil {
		return 0, err
	}
	pg, err := ParseStatCPUWithChildren(data)
	if err != nil {
		return 0, err
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil || ParseStatPPID(stat) != pgPID {
			continue
		}
		if c, err := ParseStatCPU(stat); err == nil && pid != pgPID {
			pg += c
		}
	}
	return dev + pg, nil
}

// clearPending deletes the pending proposals, so a row of proposals stays
// within the per-person bound.
func clearPending(ctx context.Context, databaseURL string) error {
	if databaseURL == "" {
		return errors.New("proposals need DATABASE_URL in the env file, to clear the pending actions")
	}
	out, err := exec.CommandContext(ctx, "psql", databaseURL, "-X", "-q", "-c",
		"delete from public.mcp_pending_actions where state = 'pending'").CombinedOutput()
	if err != nil {
		return fmt.Errorf("clearing the pending actions: %v: %s", err, out)
	}
	return nil
}

// writeToolsTable writes one row per tool and concurrency with each
// gateway's medians over the rounds, and the upstream routes per call.
func writeToolsTable(w io.Writer, o toolsOptions, calls []toolCall, samples map[string][]toolSample, skipped map[string]string) {
	fmt.Fprintf(w, "### Per tool (%s rows, %d round(s) alternating %s; medians over rounds)\n\n", o.duration, o.rounds, gatewayNames(o.gateways))
	head := "| Tool | Conn. |"
	rule := "|---|--:|"
	for _, g := range o.gateways {
		head += fmt.Sprintf(" %[1]s p50 ms | %[1]s p90 ms | %[1]s gateway CPU ms | %[1]s stack CPU ms | %[1]s upstream/call |", g.name)
		rule += "--:|--:|--:|--:|--:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, tc := range calls {
		for _, c := range o.concs {
			line := fmt.Sprintf("| `%s` | %d |", tc.name, c)
			for _, g := range o.gateways {
				ss := samples[fmt.Sprintf("%s@%d@%s", tc.name, c, g.name)]
				if len(ss) == 0 {
					line += " – | – | – | – | – |"
					continue
				}
				med := func(f func(toolSample) float64) float64 {
					xs := make([]float64, len(ss))
					for i, s := range ss {
						xs[i] = f(s)
					}
					return Median(xs)
				}
				line += fmt.Sprintf(" %.2f | %.2f | %.2f | %.2f | %.1f |",
					med(func(s toolSample) float64 { return s.p50.Seconds() * 1000 }),
					med(func(s toolSample) float64 { return s.p90.Seconds() * 1000 }),
					med(func(s toolSample) float64 { return s.gatewayCPU * 1000 }),
					med(func(s toolSample) float64 { return s.stackCPU * 1000 }),
					med(func(s toolSample) float64 { return sumValues(s.upstreamRoutes) }))
			}
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintln(w)
	writeRoutes(w, o, calls, samples)
	for _, k := range sortedKeys(skipped) {
		fmt.Fprintf(w, "- not measured: %s: %s\n", k, oneLine(skipped[k]))
	}
	for _, k := range sortedKeys(samples) {
		for _, s := range samples[k] {
			if s.errs > 0 {
				fmt.Fprintf(w, "- %s: %d of %d calls failed; first: %s\n", k, s.errs, s.calls, oneLine(s.firstErr))
				break
			}
		}
	}
	fmt.Fprintln(w)
}

// writeRoutes lists each tool's upstream requests per call by route, per
// gateway (from the first concurrency's first round: the counts do not
// depend on load).
func writeRoutes(w io.Writer, o toolsOptions, calls []toolCall, samples map[string][]toolSample) {
	fmt.Fprintln(w, "Upstream requests per call by route (authentication included), and the stack's CPU per call split:")
	fmt.Fprintln(w)
	for _, tc := range calls {
		var parts []string
		for _, g := range o.gateways {
			ss := samples[fmt.Sprintf("%s@%d@%s", tc.name, o.concs[0], g.name)]
			if len(ss) == 0 {
				continue
			}
			var routes []string
			for _, r := range sortedKeys(ss[0].upstreamRoutes) {
				routes = append(routes, fmt.Sprintf("%s %.1f", r, ss[0].upstreamRoutes[r]))
			}
			parts = append(parts, fmt.Sprintf("%s: %s (stack CPU ms: REST API %.2f, PostgreSQL %.2f)", g.name, strings.Join(routes, ", "),
				ss[0].restCPU*1000, (ss[0].stackCPU-ss[0].restCPU)*1000))
		}
		fmt.Fprintf(w, "- `%s`: %s\n", tc.name, strings.Join(parts, "; "))
	}
	fmt.Fprintln(w)
}

func gatewayNames(gs []benchGateway) string {
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = g.name
	}
	return strings.Join(names, ", ")
}

func sumValues(m map[string]float64) float64 {
	var s float64
	for _, v := range m {
		s += v
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
