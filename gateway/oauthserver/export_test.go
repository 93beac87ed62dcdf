package oauthserver

// WriteKindTools is writeKindTools for the external test package
// (writekinds_test.go), which reads the write catalogue this package must
// not import.
var WriteKindTools = writeKindTools
