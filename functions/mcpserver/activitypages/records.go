package activitypages

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// Bounds of the listings: a student's reads shown on the page, and the
// rows of an export.
const (
	maxStudentReads = 500
	maxExportRows   = 20000
)

// record is one row of mcp_activity as the pages read it.
type record struct {
	At         time.Time `json:"at"`
	UserID     string    `json:"user_id"`
	ClientName string    `json:"client_name"`
	Tool       string    `json:"tool"`
	Outcome    string    `json:"outcome"`
	Students   []string  `json:"student_profile_ids"`
}

// records reads the class's rows since the page's first day, newest
// first; student, when set, keeps the rows whose answers held that
// student's records (mcp_activity_student_reads).
func (p *Pages) records(ctx context.Context, db *userclient.Client, q classQuery, limit int) ([]record, error) {
	since := p.since().Format(time.RFC3339)
	var raw json.RawMessage
	var err error
	if q.Student != "" {
		raw, err = db.RPC(ctx, "mcp_activity_student_reads", map[string]any{"p_class_id": q.ClassID, "p_student": q.Student, "p_since": since, "p_limit": limit})
	} else {
		raw, err = db.From("mcp_activity").Select("at,user_id,client_name,tool,outcome,student_profile_ids").
			Eq("class_id", itoa(q.ClassID)).Gte("at", since).Order("at", false).Limit(limit).Rows(ctx)
	}
	if err != nil {
		return nil, err
	}
	var out []record
	return out, json.Unmarshal(raw, &out)
}

type readRow struct{ When, Staff, Client, Tool string }

type studentPage struct {
	Title, Account, Class, Student, Back string
	Days                                 int
	Reads                                []readRow
	Capped                               bool
}

// studentPage lists the calls whose answers held one student's records.
func (p *Pages) studentPage(c echo.Context, db *userclient.Client, q classQuery, n *names, a *account) error {
	recs, err := p.records(c.Request().Context(), db, q, maxStudentReads)
	if err != nil {
		return p.unavailable(c, "class activity", err)
	}
	page := studentPage{Title: "Reads of a student's records", Account: a.who(), Class: n.Class, Student: n.student(q.Student),
		Back: p.opts.BaseURL + classQuery{ClassID: q.ClassID}.path(), Days: activityDays, Capped: len(recs) == maxStudentReads}
	for _, r := range recs {
		page.Reads = append(page.Reads, readRow{When: stamp(r.At), Staff: n.staff(r.UserID), Client: r.ClientName, Tool: r.Tool})
	}
	return p.render(c, http.StatusOK, "student", page)
}

// exportCSV answers the class's rows as CSV: one line per call, with the
// staff member's and the students' names. A cell that a spreadsheet would
// read as a formula is prefixed with an apostrophe: names are others' text.
func (p *Pages) exportCSV(c echo.Context, db *userclient.Client, q classQuery, n *names) error {
	recs, err := p.records(c.Request().Context(), db, q, maxExportRows)
	if err != nil {
		return p.unavailable(c, "class activity", err)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"time_utc", "staff_user_id", "staff_name", "client", "tool", "outcome", "students_read", "student_profile_ids", "student_names"})
	for _, r := range recs {
		studentNames := make([]string, len(r.Students))
		for i, s := range r.Students {
			studentNames[i] = n.student(s)
		}
		_ = w.Write([]string{r.At.UTC().Format(time.RFC3339), r.UserID, cell(n.staff(r.UserID)), cell(r.ClientName), cell(r.Tool),
			r.Outcome, itoa(int64(len(r.Students))), strings.Join(r.Students, ";"), cell(strings.Join(studentNames, ";"))})
	}
	w.Flush()
	h := c.Response().Header()
	pages.Secure(h)
	h.Set("Content-Disposition", `attachment; filename="class-`+itoa(q.ClassID)+`-assistant-activity.csv"`)
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// cell defuses a spreadsheet formula.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
