package config

import (
	"strings"
	"testing"
	"time"
)

func TestActivitySettings(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		perMinute int
		record    bool
		retention time.Duration
		wantErr   string
	}{
		{name: "defaults", env: gatewayEnv(nil), perMinute: 120, retention: 90 * 24 * time.Hour},
		{name: "limit off", env: gatewayEnv(map[string]string{"GATEWAY_TOOL_CALLS_PER_MINUTE": "0"}), retention: 90 * 24 * time.Hour},
		{name: "limit set", env: gatewayEnv(map[string]string{"GATEWAY_TOOL_CALLS_PER_MINUTE": "30"}), perMinute: 30, retention: 90 * 24 * time.Hour},
		{name: "limit negative", env: gatewayEnv(map[string]string{"GATEWAY_TOOL_CALLS_PER_MINUTE": "-1"}),
			wantErr: `GATEWAY_TOOL_CALLS_PER_MINUTE must be a whole number from 0 (no limit) to 100000 (got "-1")`},
		{name: "limit not a number", env: gatewayEnv(map[string]string{"GATEWAY_TOOL_CALLS_PER_MINUTE": "lots"}),
			wantErr: `GATEWAY_TOOL_CALLS_PER_MINUTE must be a whole number from 0 (no limit) to 100000 (got "lots")`},
		{name: "record on", env: gatewayEnv(map[string]string{"GATEWAY_ACTIVITY_RECORD": "on", "GATEWAY_ACTIVITY_RETENTION": "168h"}),
			perMinute: 120, record: true, retention: 7 * 24 * time.Hour},
		{name: "record not a switch", env: gatewayEnv(map[string]string{"GATEWAY_ACTIVITY_RECORD": "yes"}),
			wantErr: `GATEWAY_ACTIVITY_RECORD must be on or off (got "yes")`},
		{name: "record on without the service role", env: gatewayEnv(map[string]string{"GATEWAY_ACTIVITY_RECORD": "on", "SUPABASE_SERVICE_ROLE_KEY": ""}),
			wantErr: "GATEWAY_ACTIVITY_RECORD is on, which needs SUPABASE_SERVICE_ROLE_KEY (the record's writes)"},
		{name: "record on without the secret", env: gatewayEnv(map[string]string{"GATEWAY_ACTIVITY_RECORD": "on", "GATEWAY_OAUTH_SECRET": ""}),
			wantErr: "GATEWAY_ACTIVITY_RECORD is on, which needs GATEWAY_OAUTH_SECRET (the pages' sign-in)"},
		{name: "retention too short", env: gatewayEnv(map[string]string{"GATEWAY_ACTIVITY_RETENTION": "24h"}),
			wantErr: `GATEWAY_ACTIVITY_RETENTION must be at least 168h, so that the pages' last seven days are whole (got "24h")`},
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
			if c.ToolCallsPerMinute != tt.perMinute || c.ActivityRecord != tt.record || c.ActivityRetention != tt.retention {
				t.Errorf("got %d, %v, %v; want %d, %v, %v", c.ToolCallsPerMinute, c.ActivityRecord, c.ActivityRetention, tt.perMinute, tt.record, tt.retention)
			}
		})
	}
}
