package gateway

import (
	"net/http"
	"net/http/pprof"
)

// registerProfiling mounts net/http/pprof on mux (the metrics listener's):
// CPU profiles (/debug/pprof/profile?seconds=N), heap and allocation
// profiles, goroutines and execution traces. The handlers are registered
// explicitly rather than by importing net/http/pprof for its side effect,
// which would also add them to http.DefaultServeMux; the public listener
// serves the Echo router only, so they can never appear there.
func registerProfiling(mux *http.ServeMux) {
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
}
