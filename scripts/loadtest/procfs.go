package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// userHZ is the unit of utime and stime in /proc/<pid>/stat: USER_HZ, which
// the kernel fixes at 100 for user space on every mainstream architecture.
const userHZ = 100

// ParseStatCPU returns utime+stime in seconds from the text of
// /proc/<pid>/stat. The command name (field 2) is in parentheses and may
// itself hold spaces and parentheses, so fields are counted after the last
// ')': utime and stime are fields 14 and 15.
func ParseStatCPU(stat []byte) (float64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("stat: no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state), so field k is f[k-3].
	if len(f) < 13 {
		return 0, fmt.Errorf("stat: %d fields after the command name, want at least 13", len(f))
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	return float64(utime+stime) / userHZ, nil
}

// ParseStatCPUWithChildren returns utime+stime+cutime+cstime in seconds
// (fields 14 to 17): a process's own CPU and that of the children it has
// waited for, as PostgreSQL's postmaster reaps its backends.
func ParseStatCPUWithChildren(stat []byte) (float64, error) {
	f, err := statFields(stat, 17)
	if err != nil {
		return 0, err
	}
	var sum uint64
	for _, v := range f[11:15] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat: %w", err)
		}
		sum += n
	}
	return float64(sum) / userHZ, nil
}

// ParseStatPPID returns the parent pid (field 4), or -1.
func ParseStatPPID(stat []byte) int {
	f, err := statFields(stat, 4)
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return n
}

// statFields returns the fields after the command name (f[0] is field 3),
// at least up to field last.
func statFields(stat []byte, last int) ([]string, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, errors.New("stat: no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < last-2 {
		return nil, fmt.Errorf("stat: %d fields after the command name, want at least %d", len(f), last-2)
	}
	return f, nil
}

// Memory is what /proc/<pid>/status reports about resident memory.
type Memory struct {
	RSS  uint64 // VmRSS in bytes
	Peak uint64 // VmHWM in bytes: the peak RSS over the process's life
}

// ParseStatusMemory reads VmRSS and VmHWM (in kB) from /proc/<pid>/status.
func ParseStatusMemory(status []byte) (Memory, error) {
	var m Memory
	var seen int
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("status: unexpected %s line %q", key, val)
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("status: %s: %w", key, err)
		}
		if key == "VmRSS" {
			m.RSS = n << 10
		} else {
			m.Peak = n << 10
		}
		seen++
	}
	if seen != 2 {
		return m, errors.New("status: VmRSS or VmHWM missing")
	}
	return m, sc.Err()
}

// ParseListenInodes returns the socket inodes listening on port in the text
// of /proc/net/tcp or /proc/net/tcp6 (state 0A is LISTEN; addresses are
// hex, the port after the colon).
func ParseListenInodes(table []byte, port int) []string {
	var inodes []string
	sc := bufio.NewScanner(bytes.NewReader(table))
	for first := true; sc.Scan(); first = false {
		f := strings.Fields(sc.Text())
		if first || len(f) < 10 || f[3] != "0A" {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(hexPort, 16, 32); err == nil && int(p) == port {
			inodes = append(inodes, f[9])
		}
	}
	return inodes
}

// FindListenerPID finds the process listening on the TCP port by matching
// the socket inode from /proc/net/tcp{,6} against the /proc/<pid>/fd links
// of the processes this user may inspect.
func FindListenerPID(port int) (int, error) {
	want := map[string]bool{}
	for _, t := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, ino := range ParseListenInodes(data, port) {
			want["socket:["+ino+"]"] = true
		}
	}
	if len(want) == 0 {
		return 0, fmt.Errorf("no listener on port %d in /proc/net/tcp", port)
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		if err != nil {
			continue // another user's process
		}
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name())); err == nil && want[link] {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("no visible process owns the listener on port %d", port)
}

// ProcCPU returns the CPU seconds (user+system) pid has used.
func ProcCPU(pid int) (float64, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	return ParseStatCPU(data)
}

// ProcMemory returns the resident memory of pid.
func ProcMemory(pid int) (Memory, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return Memory{}, err
	}
	return ParseStatusMemory(data)
}

// Machine describes the host for the report.
type Machine struct {
	CPUs     int    // logical CPUs (runtime.NumCPU)
	Model    string // first "model name" in /proc/cpuinfo
	MemTotal uint64 // bytes, from /proc/meminfo
}

// ParseCPUModel returns the first "model name" of /proc/cpuinfo.
func ParseCPUModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// ParseMemTotal returns MemTotal of /proc/meminfo in bytes (0 if absent).
func ParseMemTotal(meminfo []byte) uint64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && k == "MemTotal" {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				n, _ := strconv.ParseUint(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

// TCPEntry is one row of /proc/net/tcp{,6}.
type TCPEntry struct {
	LocalPort, RemotePort int
	State                 string // hex: 01 ESTABLISHED, 0A LISTEN, …
	Inode                 string
}

// ParseTCPTable parses the text of /proc/net/tcp or /proc/net/tcp6.
func ParseTCPTable(table []byte) []TCPEntry {
	var out []TCPEntry
	sc := bufio.NewScanner(bytes.NewReader(table))
	port := func(addr string) int {
		_, hexPort, ok := strings.Cut(addr, ":")
		if !ok {
			return -1
		}
		p, err := strconv.ParseUint(hexPort, 16, 32)
		if err != nil {
			return -1
		}
		return int(p)
	}
	for first := true; sc.Scan(); first = false {
		f := strings.Fields(sc.Text())
		if first || len(f) < 10 {
			continue
		}
		out = append(out, TCPEntry{LocalPort: port(f[1]), RemotePort: port(f[2]), State: f[3], Inode: f[9]})
	}
	return out
}

// OutgoingConns counts the established TCP connections in entries that
// belong to a process (its socket inodes in owned) and that it dialled:
// those whose local port is not one it listens on. For the gateway these
// are its pooled connections to PostgREST and Auth.
func OutgoingConns(entries []TCPEntry, owned map[string]bool) int {
	listening := map[int]bool{}
	for _, e := range entries {
		if e.State == "0A" && owned[e.Inode] {
			listening[e.LocalPort] = true
		}
	}
	n := 0
	for _, e := range entries {
		if e.State == "01" && owned[e.Inode] && !listening[e.LocalPort] {
			n++
		}
	}
	return n
}

// ProcOutgoingConns returns OutgoingConns for pid from /proc.
func ProcOutgoingConns(pid int) (int, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	owned := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			owned[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var entries []TCPEntry
	for _, t := range []string{"net/tcp", "net/tcp6"} {
		// The process's own view of the network namespace.
		if data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), t)); err == nil {
			entries = append(entries, ParseTCPTable(data)...)
		}
	}
	return OutgoingConns(entries, owned), nil
}
