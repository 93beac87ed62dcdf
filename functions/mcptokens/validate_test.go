package mcptokens

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

func mustObject(t *testing.T, text string) *jsjson.Object {
	t.Helper()
	v, err := jsjson.Decode([]byte(text))
	if err != nil {
		t.Fatalf("decode %s: %v", text, err)
	}
	return v.(*jsjson.Object)
}

func TestValidateCreate(t *testing.T) {
	long100 := strings.Repeat("a", 100)
	long101 := strings.Repeat("a", 101)
	emoji50 := strings.Repeat("😀", 50) // 100 UTF-16 code units
	emoji51 := strings.Repeat("😀", 50) + "a"
	tests := []struct {
		name    string
		body    string
		want    createRequest
		wantMsg string
	}{
		{"defaults", `{"name":"laptop"}`, createRequest{Name: "laptop", Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"trimmed name", "{\"name\":\"\\u00a0 laptop \\ufeff\"}", createRequest{Name: "laptop", Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"U+0085 is not trimmed", "{\"name\":\"\\u0085\"}", createRequest{Name: "\u0085", Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"missing name", `{}`, createRequest{}, msgNameRequired},
		{"empty name", `{"name":""}`, createRequest{}, msgNameRequired},
		{"blank name", "{\"name\":\" \\u3000\\t\\u2028\"}", createRequest{}, msgNameRequired},
		{"numeric name", `{"name":5}`, createRequest{}, msgNameRequired},
		{"100 units", `{"name":"` + long100 + `"}`, createRequest{Name: long100, Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"101 units", `{"name":"` + long101 + `"}`, createRequest{}, msgNameTooLong},
		{"100 units of surrogate pairs", `{"name":"` + emoji50 + `"}`, createRequest{Name: emoji50, Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"101 units with surrogate pairs", `{"name":"` + emoji51 + `"}`, createRequest{}, msgNameTooLong},
		{"length counts untrimmed", `{"name":"  ` + strings.Repeat("a", 99) + `"}`, createRequest{}, msgNameTooLong},
		{"all scopes, duplicates kept", `{"name":"x","scopes":["cli:write","mcp:read","mcp:read"]}`, createRequest{Name: "x", Scopes: []string{"cli:write", "mcp:read", "mcp:read"}, Days: 90}, ""},
		{"empty scope list accepted", `{"name":"x","scopes":[]}`, createRequest{Name: "x", Scopes: []string{}, Days: 90}, ""},
		{"falsy scopes default", `{"name":"x","scopes":""}`, createRequest{Name: "x", Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"null scopes default", `{"name":"x","scopes":null}`, createRequest{Name: "x", Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"unknown scope", `{"name":"x","scopes":["mcp:admin"]}`, createRequest{}, msgInvalidScopes},
		{"scopes not array", `{"name":"x","scopes":"mcp:read"}`, createRequest{}, msgInvalidScopes},
		{"scopes object", `{"name":"x","scopes":{}}`, createRequest{}, msgInvalidScopes},
		{"fractional days", `{"name":"x","expires_in_days":1.5}`, createRequest{Name: "x", Scopes: []string{"mcp:read"}, Days: 1.5}, ""},
		{"string days become 90", `{"name":"x","expires_in_days":"400"}`, createRequest{Name: "x", Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"bool days become 90", `{"name":"x","expires_in_days":true}`, createRequest{Name: "x", Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"null days become 90", `{"name":"x","expires_in_days":null}`, createRequest{Name: "x", Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"overflowing days become 90", `{"name":"x","expires_in_days":1e400}`, createRequest{Name: "x", Scopes: []string{"mcp:read"}, Days: 90}, ""},
		{"365 days", `{"name":"x","expires_in_days":365}`, createRequest{Name: "x", Scopes: []string{"mcp:read"}, Days: 365}, ""},
		{"1 day", `{"name":"x","expires_in_days":1}`, createRequest{Name: "x", Scopes: []string{"mcp:read"}, Days: 1}, ""},
		{"0 days", `{"name":"x","expires_in_days":0}`, createRequest{}, msgExpiryRange},
		{"366 days", `{"name":"x","expires_in_days":366}`, createRequest{}, msgExpiryRange},
		{"0.5 days", `{"name":"x","expires_in_days":0.5}`, createRequest{}, msgExpiryRange},
		{"name checked before scopes", `{"scopes":["bad"]}`, createRequest{}, msgNameRequired},
		{"scopes checked before days", `{"name":"x","scopes":["bad"],"expires_in_days":0}`, createRequest{}, msgInvalidScopes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, msg := validateCreate(mustObject(t, tt.body))
			if msg != tt.wantMsg {
				t.Fatalf("message = %q, want %q", msg, tt.wantMsg)
			}
			if msg != "" {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("request mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateRevoke(t *testing.T) {
	tests := []struct {
		body, want, wantMsg string
	}{
		{`{"token_id":"abc"}`, "abc", ""},
		{`{}`, "", msgTokenIDRequired},
		{`{"token_id":""}`, "", msgTokenIDRequired},
		{`{"token_id":5}`, "", msgTokenIDRequired},
		{`{"token_id":null}`, "", msgTokenIDRequired},
	}
	for _, tt := range tests {
		got, msg := validateRevoke(mustObject(t, tt.body))
		if got != tt.want || msg != tt.wantMsg {
			t.Errorf("validateRevoke(%s) = %q, %q; want %q, %q", tt.body, got, msg, tt.want, tt.wantMsg)
		}
	}
}
