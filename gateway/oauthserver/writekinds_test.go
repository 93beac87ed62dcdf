package oauthserver_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/oauthserver"
)

// TestConsentNamesEveryWrite: the write consent names each write tool of
// the catalogue (tools.WriteNames, read here in a test only: the package
// itself imports nothing under functions/) exactly once, and nothing
// else, so a new write tool fails this test until the consent page says
// what it writes and who sees it (writekinds.go).
func TestConsentNamesEveryWrite(t *testing.T) {
	named := oauthserver.WriteKindTools()
	catalogue := tools.WriteNames()
	if len(catalogue) == 0 {
		t.Fatal("the catalogue lists no write tool")
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	if diff := cmp.Diff(sorted(catalogue), sorted(named)); diff != "" {
		t.Errorf("write tools (-catalogue +named on the consent page):\n%s", diff)
	}
	if len(slices.Compact(sorted(named))) != len(named) {
		t.Errorf("the consent names a tool twice: %v", named)
	}
}
