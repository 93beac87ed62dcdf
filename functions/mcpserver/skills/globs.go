package skills

// GlobTarget is a glob pattern a skill suggests for get_submission_files
// and the seeded files it is meant for (supabase/fixtures/SEED.md): the
// files of one submission it must return, in the tool's name order.
type GlobTarget struct {
	Pattern    string
	Submission int
	Files      []string
}

// GlobTargets lists every pattern the skills suggest with its seeded
// target. Tests hold it both ways: each pattern a skill suggests has a
// target, and the tool returns exactly those files on the seeded stack.
var GlobTargets = []GlobTarget{
	{"**/*.java", 3, []string{"src/Empty.java", "src/Main.java", "src/Util.java"}},
	{"**/*.java", 8, []string{"Recursion.java"}},
	{"src/**/*.java", 3, []string{"src/Empty.java", "src/Main.java", "src/Util.java"}},
	{"**/LinkedList.java", 5, []string{"src/LinkedList.java"}},
}
