package mcpserver

import (
	"net/http"
	"testing"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
)

// TestProtocolVersionKeyReadsWithoutAllocating: the revision header is read
// under its canonical name, the one net/http stores it under whatever the
// client's spelling, so a refusal's reads of it allocate nothing.
func TestProtocolVersionKeyReadsWithoutAllocating(t *testing.T) {
	if protocolVersionKey != "Mcp-Protocol-Version" {
		t.Fatalf("protocolVersionKey = %q", protocolVersionKey)
	}
	h := http.Header{}
	h.Set(revision.HeaderProtocolVersion, "2025-06-18")
	if got := headerJS(h, protocolVersionKey); got != "2025-06-18" {
		t.Fatalf("headerJS = %q, want 2025-06-18", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = headerJS(h, protocolVersionKey) }); n != 0 {
		t.Fatalf("reading the header allocates %v times, want 0", n)
	}
}
