package mcpauth

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

func TestParseAuthorization(t *testing.T) {
	tests := []struct {
		header    string
		wantToken string
		wantMsg   string // "" for success
	}{
		{"", "", MsgMissingHeader},
		{"Bearer abc", "abc", ""},
		{"bearer abc", "abc", ""},
		{"BEARER abc", "abc", ""},
		{"BeArEr mcp_x.y.z", "mcp_x.y.z", ""},
		{"Bearer ", "", ""}, // empty token: refused later by verification
		{"Basic abc", "", MsgInvalidHeader},
		{"Bearer", "", MsgInvalidHeader},
		{"Bearer  abc", "", MsgInvalidHeader},
		{"Bearer abc ", "", MsgInvalidHeader},
		{" Bearer abc", "", MsgInvalidHeader},
		{"Bearer a b", "", MsgInvalidHeader},
		{"Bearer\tabc", "", MsgInvalidHeader},
		{"abc", "", MsgInvalidHeader},
		{"Bearerx abc", "", MsgInvalidHeader},
		{"Token abc", "", MsgInvalidHeader},
		{"Bearer abc\t", "abc\t", ""}, // only spaces split
	}
	for _, tc := range tests {
		t.Run(tc.header, func(t *testing.T) {
			tok, err := ParseAuthorization(tc.header)
			gotMsg := ""
			if err != nil {
				var ae *apierror.Error
				if !errors.As(err, &ae) || ae.Status != 401 {
					t.Fatalf("err = %v, want a 401 *apierror.Error", err)
				}
				gotMsg = ae.Message
			}
			if diff := cmp.Diff([2]string{tc.wantToken, tc.wantMsg}, [2]string{tok, gotMsg}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseAuthorization checks the A7 step 2 rule against a direct
// transcription of the JavaScript (split(" "), two parts, lower-case).
func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{"", "Bearer x", "bearer  x", "Basic x", "Bearer", "Bearer x y", "BEARER mcp_a.b.c", "ſearer x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		tok, err := ParseAuthorization(header)
		if header == "" {
			if err == nil || err.Error() != MsgMissingHeader {
				t.Fatalf("empty header: err = %v", err)
			}
			return
		}
		parts := strings.Split(header, " ")
		wantOK := len(parts) == 2 && strings.ToLower(parts[0]) == "bearer"
		if wantOK != (err == nil) {
			t.Fatalf("ParseAuthorization(%q) err = %v, want ok=%v", header, err, wantOK)
		}
		if err != nil {
			if err.Error() != MsgInvalidHeader {
				t.Fatalf("message = %q", err.Error())
			}
			return
		}
		if tok != parts[1] {
			t.Fatalf("token = %q, want %q", tok, parts[1])
		}
	})
}
