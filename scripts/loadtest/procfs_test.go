package main

import (
	"net"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseStatCPU(t *testing.T) {
	tests := []struct {
		name string
		stat string
		want float64
	}{
		{"plain", "4242 (gateway) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 9 0 100 1000000 500 18446744073709551615", 3.25},
		{"spaces and parens in the name", "7 (my (odd) name) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 1 1 1", 0.03},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatCPU([]byte(tt.stat))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "1 gateway S 1", "1 (g) S 1 2 3", "1 (g) S 1 2 3 4 5 6 7 8 9 10 x 12"} {
		if _, err := ParseStatCPU([]byte(bad)); err == nil {
			t.Errorf("ParseStatCPU(%q) succeeded", bad)
		}
	}
}

func TestParseStatusMemory(t *testing.T) {
	status := "Name:\tgateway\nVmPeak:\t  800000 kB\nVmHWM:\t   30720 kB\nVmRSS:\t   20480 kB\nThreads:\t9\n"
	got, err := ParseStatusMemory([]byte(status))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Memory{RSS: 20 << 20, Peak: 30 << 20}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{"Name:\tx\n", "VmRSS:\t12 MB\nVmHWM:\t1 kB\n", "VmRSS:\tx kB\nVmHWM:\t1 kB\n"} {
		if _, err := ParseStatusMemory([]byte(bad)); err == nil {
			t.Errorf("ParseStatusMemory(%q) succeeded", bad)
		}
	}
}

func TestParseListenInodes(t *testing.T) {
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:2328 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0000000000000000 100 0 0 10 0
   1: 0100007F:2328 0100007F:A000 01 00000000:00000000 00:00000000 00000000  1000        0 222 1 0000000000000000 20 4 30 10 -1
   2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 333 1 0000000000000000 100 0 0 10 0
`
	if diff := cmp.Diff([]string{"111"}, ParseListenInodes([]byte(table), 9000)); diff != "" {
		t.Errorf("port 9000 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"333"}, ParseListenInodes([]byte(table), 8080)); diff != "" {
		t.Errorf("port 8080 (-want +got):\n%s", diff)
	}
	if got := ParseListenInodes([]byte(table), 1); got != nil {
		t.Errorf("port 1: got %v", got)
	}
}

func TestParseMachine(t *testing.T) {
	cpuinfo := "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\n\nprocessor\t: 1\nmodel name\t: other\n"
	if got := ParseCPUModel([]byte(cpuinfo)); got != "Intel(R) Xeon(R) Processor" {
		t.Errorf("ParseCPUModel = %q", got)
	}
	if got := ParseCPUModel(nil); got != "unknown" {
		t.Errorf("ParseCPUModel(nil) = %q", got)
	}
	if got := ParseMemTotal([]byte("MemTotal:        8000000 kB\nMemFree: 1 kB\n")); got != 8000000<<10 {
		t.Errorf("ParseMemTotal = %d", got)
	}
}

func TestProcSelf(t *testing.T) {
	// The test process itself: the readers must work on a live /proc.
	pid := selfPID()
	if _, err := ProcCPU(pid); err != nil {
		t.Fatal(err)
	}
	m, err := ProcMemory(pid)
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS == 0 || m.Peak < m.RSS {
		t.Errorf("implausible memory %+v", m)
	}
}

func selfPID() int { return os.Getpid() }

func TestFindListenerPID(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got, err := FindListenerPID(l.Addr().(*net.TCPAddr).Port)
	if err != nil {
		t.Fatal(err)
	}
	if got != os.Getpid() {
		t.Errorf("FindListenerPID = %d, want %d", got, os.Getpid())
	}
}

func TestOutgoingConns(t *testing.T) {
	// Inodes 1–4 belong to the process: a listener on 9000 with one
	// accepted connection, a dialled connection to 54321, and a listener
	// on 9100 (metrics) with one accepted connection. Inode 9 is another
	// process's connection.
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:2328 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0
   1: 0100007F:2328 0100007F:C000 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0
   2: 0100007F:C001 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0
   3: 0100007F:238C 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4 1 0
   4: 0100007F:238C 0100007F:C002 01 00000000:00000000 00:00000000 00000000  1000        0 5 1 0
   5: 0100007F:C003 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 9 1 0
`
	entries := ParseTCPTable([]byte(table))
	if len(entries) != 6 || entries[2] != (TCPEntry{LocalPort: 0xC001, RemotePort: 54321, State: "01", Inode: "3"}) {
		t.Fatalf("ParseTCPTable = %+v", entries)
	}
	owned := map[string]bool{"1": true, "2": true, "3": true, "4": true, "5": true}
	if got := OutgoingConns(entries, owned); got != 1 {
		t.Errorf("OutgoingConns = %d, want 1", got)
	}
}

// TestParseStatChildrenAndPPID reads fields 4 and 14–17 after a command
// name holding spaces and parentheses.
func TestParseStatChildrenAndPPID(t *testing.T) {
	stat := []byte("4242 (post gres) (x)) S 77 4242 4242 0 -1 4194560 100 0 0 0 150 50 300 25 20 0 1 0 100 0 0")
	cpu, err := ParseStatCPUWithChildren(stat)
	if err != nil || cpu != 5.25 {
		t.Errorf("ParseStatCPUWithChildren = %v, %v; want 5.25", cpu, err)
	}
	if got := ParseStatPPID(stat); got != 77 {
		t.Errorf("ParseStatPPID = %d, want 77", got)
	}
	if _, err := ParseStatCPUWithChildren([]byte("1 (x) S 1 1")); err == nil {
		t.Error("short stat: no error")
	}
	if got := ParseStatPPID([]byte("no name")); got != -1 {
		t.Errorf("ParseStatPPID without a name = %d, want -1", got)
	}
}
