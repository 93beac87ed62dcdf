// Package docs holds the project's documentation and no code. Its test,
// TestReferencesStayInRepository, keeps every reference in the repository
// pointing at something the repository contains: the behaviour contract in
// docs/contract/ (and the sections cited in it), relative Markdown links and
// their anchors, and no path of a developer's machine.
package docs
