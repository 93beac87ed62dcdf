package activityrecord

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

var stack gatewaytest.Lazy

func TestMain(m *testing.M) { gatewaytest.MainLazy(m, &stack) }

const (
	samPrivate   = "20000001-0000-4000-8000-000000000003"
	sofiaPrivate = "20000001-0000-4000-8000-000000000004"
)

// sqlRow is a row of a fresh test "day" far from the seed and from other
// tests' rows.
func sqlRow(user, token string, class int64, at time.Time, students ...string) Row {
	if students == nil {
		students = []string{}
	}
	return Row{CallID: uuid.NewString(), At: ts(at), UserID: user, TokenID: token, ClassID: &class,
		Tool: "get_submission", Outcome: "ok", DurationMS: 5, Students: students}
}

// TestRecordAndRowLevelSecurity: the service role records batches once
// per call id; each person reads their own rows, a class's instructors
// the class's rows, nobody else anything; nobody but the service role
// writes.
func TestRecordAndRowLevelSecurity(t *testing.T) {
	env := stack.Env(t)
	ctx := context.Background()
	store := NewPostgRESTStore(env.ServiceREST(t))
	day := time.Date(2031, 3, 4, 10, 0, 0, 0, time.UTC)
	rows := []Row{
		sqlRow(gatewaytest.Gary, "seed-jti-gary-expired", 1, day, samPrivate, sofiaPrivate),
		sqlRow(gatewaytest.Gary, "seed-jti-gary-expired", 1, day.Add(time.Minute), samPrivate),
		sqlRow(gatewaytest.Tara, "", 2, day),
	}
	n, err := store.Insert(ctx, rows, day.Add(time.Hour))
	if err != nil || n != 3 {
		t.Fatalf("Insert: %d, %v; want 3", n, err)
	}
	if n, err := store.Insert(ctx, rows[:1], day.Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("a repeated call id was recorded again: %d, %v", n, err)
	}
	if _, err := store.Insert(ctx, []Row{sqlRow(gatewaytest.Gary, "", 1, day.Add(2*time.Hour))}, day.Add(time.Hour)); err == nil {
		t.Fatal("a row dated after p_now was recorded")
	}
	visible := func(user string) []string {
		t.Helper()
		raw, err := env.UserClient(t, user).From("mcp_activity").Select("user_id,class_id,client_name,student_profile_ids").
			Gte("at", ts(day)).Lt("at", ts(day.Add(24*time.Hour))).Rows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []struct {
			UserID     string   `json:"user_id"`
			ClassID    int64    `json:"class_id"`
			ClientName string   `json:"client_name"`
			Students   []string `json:"student_profile_ids"`
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range got {
			out = append(out, r.UserID[len(r.UserID)-2:]+" class "+string(rune('0'+r.ClassID))+" "+r.ClientName+" "+jsonList(r.Students))
		}
		sort.Strings(out)
		return out
	}
	gary1 := "02 class 1 Expired token [" + samPrivate + " " + sofiaPrivate + "]"
	gary2 := "02 class 1 Expired token [" + samPrivate + "]"
	tests := []struct {
		who, as string
		want    []string
	}{
		{"the TA herself", gatewaytest.Gary, []string{gary1, gary2}},
		{"class 1's instructor", gatewaytest.Alice, []string{gary1, gary2}},
		{"class 2's instructor", gatewaytest.Bea, []string{"08 class 2  []"}},
		{"a student", gatewaytest.Sam, nil},
		{"no roles", gatewaytest.Nora, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, visible(tt.as)); diff != "" {
			t.Errorf("%s sees (-want +got):\n%s", tt.who, diff)
		}
	}
	if _, err := env.UserClient(t, gatewaytest.Gary).RPC(ctx, "mcp_activity_record", map[string]any{"p_rows": rows, "p_now": ts(day)}); err == nil {
		t.Error("a person could call mcp_activity_record")
	}
}

func jsonList(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}

// TestClassSummaries: per staff member and day, the calls per tool and the
// distinct students read; per student, the reads; only for instructors.
func TestClassSummaries(t *testing.T) {
	env := stack.Env(t)
	ctx := context.Background()
	store := NewPostgRESTStore(env.ServiceREST(t))
	day := time.Date(2032, 5, 6, 9, 0, 0, 0, time.UTC)
	rows := []Row{
		sqlRow(gatewaytest.Gary, "", 1, day, samPrivate, sofiaPrivate),
		sqlRow(gatewaytest.Gary, "", 1, day.Add(time.Hour), samPrivate),
		sqlRow(gatewaytest.Gary, "", 1, day.Add(24*time.Hour)),
	}
	rows[2].Tool = "search_help_requests"
	if _, err := store.Insert(ctx, rows, day.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"p_class_id": 1, "p_since": ts(day)}
	days := func(as string) string {
		raw, err := env.UserClient(t, as).RPC(ctx, "mcp_activity_class_days", args)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	want := `[{"day":"2032-05-07","user_id":"` + gatewaytest.Gary + `","tools":{"search_help_requests": 1},"calls":1,"students":0}, ` + "\n " +
		`{"day":"2032-05-06","user_id":"` + gatewaytest.Gary + `","tools":{"get_submission": 2},"calls":2,"students":2}]`
	if got := days(gatewaytest.Alice); got != want {
		t.Errorf("class days as the instructor:\n got %s\nwant %s", got, want)
	}
	if got := days(gatewaytest.Gary); got != "[]" {
		t.Errorf("class days as a TA: %s, want []", got)
	}
	raw, err := env.UserClient(t, gatewaytest.Alice).RPC(ctx, "mcp_activity_class_students", args)
	if err != nil {
		t.Fatal(err)
	}
	wantStudents := `[{"profile_id":"` + samPrivate + `","reads":2,"readers":1,"last_at":"2032-05-06T10:00:00+00:00"}, ` + "\n " +
		`{"profile_id":"` + sofiaPrivate + `","reads":1,"readers":1,"last_at":"2032-05-06T09:00:00+00:00"}]`
	if string(raw) != wantStudents {
		t.Errorf("class students:\n got %s\nwant %s", raw, wantStudents)
	}
}

// TestPurge deletes only rows older than the cut.
func TestPurge(t *testing.T) {
	env := stack.Env(t)
	ctx := context.Background()
	store := NewPostgRESTStore(env.ServiceREST(t))
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := store.Insert(ctx, []Row{sqlRow(gatewaytest.Gary, "", 1, old), sqlRow(gatewaytest.Gary, "", 1, old.Add(time.Hour))}, old.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Store: store, Now: func() time.Time { return old.Add(30 * time.Minute) }, Retention: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	if n := r.purgeOnce(ctx); n != 1 {
		t.Fatalf("purged %d rows, want 1", n)
	}
}
