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

func TestWriteLimits(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		maxPending int
		retention  string
		wantErr    string
	}{
		{name: "defaults", env: gatewayEnv(nil), maxPending: 20, retention: "720h0m0s"},
		{name: "set", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_MAX_PENDING": "5", "GATEWAY_WRITE_RETENTION": "48h"}), maxPending: 5, retention: "48h0m0s"},
		{name: "zero pending", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_MAX_PENDING": "0"}),
			wantErr: `GATEWAY_WRITE_MAX_PENDING must be a whole number from 1 to 1000 (got "0")`},
		{name: "pending not a number", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_MAX_PENDING": "many"}),
			wantErr: `GATEWAY_WRITE_MAX_PENDING must be a whole number from 1 to 1000 (got "many")`},
		{name: "retention too short", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_RETENTION": "1h"}),
			wantErr: `GATEWAY_WRITE_RETENTION must be at least 24h, so that a decision stays readable (got "1h")`},
		{name: "retention not a duration", env: gatewayEnv(map[string]string{"GATEWAY_WRITE_RETENTION": "30 days"}),
			wantErr: `GATEWAY_WRITE_RETENTION must be a positive duration such as 10s or 1m30s (got "30 days")`},
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
			if c.WriteMaxPending != tt.maxPending || c.WriteRetention.String() != tt.retention {
				t.Errorf("limits = %d, %s; want %d, %s", c.WriteMaxPending, c.WriteRetention, tt.maxPending, tt.retention)
			}
		})
	}
}
