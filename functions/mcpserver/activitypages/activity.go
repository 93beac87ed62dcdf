package activitypages

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// activityDays is how far back the class page looks.
const activityDays = 30

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// classQuery is the page's validated query.
type classQuery struct {
	ClassID int64
	Student string // a profile id, or ""
	CSV     bool
}

func parseClassQuery(c echo.Context) (classQuery, bool) {
	var q classQuery
	id, err := strconv.ParseInt(c.QueryParam("class_id"), 10, 64)
	if err != nil || id <= 0 {
		return q, false
	}
	q.ClassID, q.Student, q.CSV = id, c.QueryParam("student"), c.QueryParam("format") == "csv"
	return q, q.Student == "" || uuidPattern.MatchString(q.Student)
}

func (q classQuery) path() string {
	out := PathActivity + "?class_id=" + itoa(q.ClassID)
	if q.Student != "" {
		out += "&student=" + q.Student
	}
	if q.CSV {
		out += "&format=csv"
	}
	return out
}

// activity serves the class activity page, its per-student list and its
// CSV export, to the class's instructors only.
func (p *Pages) activity(c echo.Context) error {
	q, ok := parseClassQuery(c)
	if !ok {
		return p.message(c, http.StatusBadRequest, "Which class?", "This address does not name a class.", "Open the page as /activity?class_id=<the class's number>.")
	}
	a, err := p.signedIn(c, q.path())
	if a == nil {
		return err
	}
	ctx := c.Request().Context()
	db, err := p.opts.Users.ForUser(ctx, a.ID)
	if err != nil {
		return p.unavailable(c, "class activity", err)
	}
	instructor, err := isInstructor(ctx, db, q.ClassID)
	if err != nil {
		return p.unavailable(c, "class activity", err)
	}
	if !instructor {
		return p.message(c, http.StatusForbidden, "Only the class's instructors see this page",
			"You are signed in as "+a.who()+", who is not an instructor of class "+itoa(q.ClassID)+". Nothing is shown.",
			"Your own assistants' calls are on your Connections page.")
	}
	names, err := classNames(ctx, db, q.ClassID)
	if err != nil {
		return p.unavailable(c, "class activity", err)
	}
	switch {
	case q.CSV:
		return p.exportCSV(c, db, q, names)
	case q.Student != "":
		return p.studentPage(c, db, q, names, a)
	}
	return p.classPage(c, db, q, names, a)
}

func isInstructor(ctx context.Context, db *userclient.Client, classID int64) (bool, error) {
	raw, err := db.RPC(ctx, "mcp_activity_is_instructor", map[string]any{"p_class_id": classID})
	if err != nil {
		return false, err
	}
	var ok bool
	return ok, json.Unmarshal(raw, &ok)
}

// names are the class's people as the instructor reads them: staff by user
// id, students by their private and public profile ids, and the class's
// name.
type names struct {
	Class    string
	Staff    map[string]string
	Students map[string]string
}

func (n *names) staff(userID string) string {
	if s, ok := n.Staff[userID]; ok && s != "" {
		return s
	}
	return "user " + userID
}

func (n *names) student(profileID string) string {
	if s, ok := n.Students[profileID]; ok && s != "" {
		return s
	}
	return "profile " + profileID
}

// classNames reads the class and its roles (bounded) as the instructor.
func classNames(ctx context.Context, db *userclient.Client, classID int64) (*names, error) {
	raw, err := db.From("user_roles").Select("user_id,role,private_profile_id,public_profile_id,profiles!user_roles_private_profile_id_fkey(name)").
		Eq("class_id", itoa(classID)).Limit(10000).Rows(ctx)
	if err != nil {
		return nil, err
	}
	var roles []struct {
		UserID  string `json:"user_id"`
		Role    string `json:"role"`
		Private string `json:"private_profile_id"`
		Public  string `json:"public_profile_id"`
		Profile *struct {
			Name *string `json:"name"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal(raw, &roles); err != nil {
		return nil, err
	}
	n := &names{Class: "class " + itoa(classID), Staff: map[string]string{}, Students: map[string]string{}}
	for _, r := range roles {
		name := ""
		if r.Profile != nil && r.Profile.Name != nil {
			name = *r.Profile.Name
		}
		if r.Role == "student" {
			// Answers name a student by either profile; both are the
			// student's real name here, which instructors see anyway.
			n.Students[r.Private], n.Students[r.Public] = name, name
		} else if _, seen := n.Staff[r.UserID]; !seen || name != "" {
			n.Staff[r.UserID] = name
		}
	}
	raw, err = db.From("classes").Select("name").Eq("id", itoa(classID)).MaybeSingle(ctx)
	if err == nil && raw != nil {
		var cl struct{ Name string }
		if json.Unmarshal(raw, &cl) == nil && cl.Name != "" {
			n.Class = cl.Name
		}
	}
	return n, err
}

type dayRow struct {
	Day, Staff string
	Tools      []toolCalls
	Calls      int64
	Students   int64
}

type studentRow struct {
	Name, URL, Last string
	Reads, Readers  int64
}

type classPage struct {
	Title, Account, Class, CSV string
	Days                       int
	Rows                       []dayRow
	Students                   []studentRow
}

// classPage reads the per-day and per-student summaries.
func (p *Pages) classPage(c echo.Context, db *userclient.Client, q classQuery, n *names, a *account) error {
	ctx := c.Request().Context()
	args := map[string]any{"p_class_id": q.ClassID, "p_since": p.since().Format(time.RFC3339)}
	raw, err := db.RPC(ctx, "mcp_activity_class_days", args)
	var days []struct {
		Day      string           `json:"day"`
		UserID   string           `json:"user_id"`
		Tools    map[string]int64 `json:"tools"`
		Calls    int64            `json:"calls"`
		Students int64            `json:"students"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &days)
	}
	if err != nil {
		return p.unavailable(c, "class activity", err)
	}
	page := classPage{Title: "Assistants' activity", Account: a.who(), Class: n.Class, Days: activityDays,
		CSV: p.opts.BaseURL + classQuery{ClassID: q.ClassID, CSV: true}.path()}
	for _, d := range days {
		page.Rows = append(page.Rows, dayRow{Day: d.Day, Staff: n.staff(d.UserID), Tools: sortedCalls(d.Tools), Calls: d.Calls, Students: d.Students})
	}
	if page.Students, err = p.readStudents(ctx, db, q, n, args); err != nil {
		return p.unavailable(c, "class activity", err)
	}
	return p.render(c, http.StatusOK, "class", page)
}

func (p *Pages) since() time.Time {
	return p.opts.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -(activityDays - 1))
}

func sortedCalls(m map[string]int64) []toolCalls {
	out := make([]toolCalls, 0, len(m))
	for t, n := range m {
		out = append(out, toolCalls{Tool: t, Calls: n})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Calls > out[j].Calls || out[i].Calls == out[j].Calls && out[i].Tool < out[j].Tool
	})
	return out
}

// readStudents is mcp_activity_class_students with names and links.
func (p *Pages) readStudents(ctx context.Context, db *userclient.Client, q classQuery, n *names, args map[string]any) ([]studentRow, error) {
	raw, err := db.RPC(ctx, "mcp_activity_class_students", args)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ProfileID string    `json:"profile_id"`
		Reads     int64     `json:"reads"`
		Readers   int64     `json:"readers"`
		LastAt    time.Time `json:"last_at"`
	}
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, err
	}
	out := make([]studentRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, studentRow{Name: n.student(r.ProfileID), Reads: r.Reads, Readers: r.Readers, Last: stamp(r.LastAt),
			URL: p.opts.BaseURL + classQuery{ClassID: q.ClassID, Student: r.ProfileID}.path()})
	}
	return out, nil
}
