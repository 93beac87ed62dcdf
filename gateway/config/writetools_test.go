package config

import (
	"strings"
	"testing"
)

func TestWriteTools(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    bool
		wantErr string
	}{
		{name: "default off", env: gatewayEnv(nil)},
		{name: "off", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_TOOLS": "off"})},
		{name: "on", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_TOOLS": "ON"}), want: true},
		{name: "not a switch", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_TOOLS": "true"}),
			wantErr: `GATEWAY_WRITE_TOOLS must be on or off (got "true")`},
		{name: "on without the secret", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_TOOLS": "on", "GATEWAY_OAUTH_SECRET": ""}),
			wantErr: "GATEWAY_WRITE_TOOLS is on, which needs GATEWAY_OAUTH_SECRET (the approval page's sign-in)"},
		{name: "on without mcp-server", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_TOOLS": "on", "MCP_SERVER_ENABLED": "false"}),
			wantErr: "GATEWAY_WRITE_TOOLS is on, which needs MCP_SERVER_ENABLED=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.WriteTools != tt.want {
				t.Errorf("WriteTools = %v, want %v", c.WriteTools, tt.want)
			}
		})
	}
}
