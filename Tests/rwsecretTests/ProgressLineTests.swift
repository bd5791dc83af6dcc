import Testing
@testable import rwsecret

/// The progress line's wording (its drawing rules are tested on a pseudo-terminal in
/// TerminalExperienceTests).
@Suite("progress line wording")
struct ProgressLineTests {
    @Test func sizes() {
        #expect(ProgressLine.size(512) == "512 B")
        #expect(ProgressLine.size(1536) == "1.5 KiB")
        #expect(ProgressLine.size(256 << 20) == "256.0 MiB")
        #expect(ProgressLine.size(1 << 30) == "1.0 GiB")
    }

    @Test func durations() {
        #expect(ProgressLine.duration(400) == "1 s")
        #expect(ProgressLine.duration(59_000) == "59 s")
        #expect(ProgressLine.duration(185_000) == "3 min 5 s")
        #expect(ProgressLine.duration(7_800_000) == "2 h 10 min")
    }

    @Test func grouping() {
        #expect(ProgressLine.grouped(7) == "7")
        #expect(ProgressLine.grouped(3025) == "3,025")
        #expect(ProgressLine.grouped(1_234_567) == "1,234,567")
    }
}
