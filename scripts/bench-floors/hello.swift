// The start-up floor of a Swift program built as `make release` builds rwsecret (static Swift
// runtime, lld, packed relative relocations): print one line and exit. `make bench-goals`
// times it beside `openssl version` and rwsecret (docs/performance.md, "The standing ratios").
print("hello")
