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

    // Issue 27 item 8: progress counted bytes read ahead, jumped about, and froze on an idle stream.
    @Test("work done: the handed-out bytes in the share of their lines that are done")
    func workDone() {
        #expect(ProgressLine.workDone(consumed: 1000, linesReturned: 10, doneLine: 5) == 500)
        #expect(ProgressLine.workDone(consumed: 1000, linesReturned: 10, doneLine: 10) == 1000)
        #expect(ProgressLine.workDone(consumed: 1000, linesReturned: 10, doneLine: nil) == 1000)
        #expect(ProgressLine.workDone(consumed: 1000, linesReturned: 3, doneLine: 7) == 0, "a line of an earlier input")
    }

    @Test("the rate for the time left is smoothed: a burst or a stall moves it by a part only")
    func smoothedRate() throws {
        var rate = RateEstimate()
        let first = rate.sample(elapsed: 1000, work: 1000)
        let close = rate.sample(elapsed: 1200, work: 5000)
        let steady = rate.sample(elapsed: 2000, work: 2000)
        #expect(first == 1 && close == 1 && steady == 1, "samples closer than half a second are not taken")
        let burst = rate.sample(elapsed: 2500, work: 10_000) ?? 0
        #expect(burst > 1 && burst < 6, "\(burst)")
        let stall = rate.sample(elapsed: 3000, work: 10_000) ?? 0
        #expect(stall > 0.5 * burst && stall < burst, "\(stall)")
    }

    @Test("an idle input: the counts stay, the rate and time left give way to 'waiting for input'")
    func waiting() {
        #expect(ProgressLine.waiting("rwsecret: 3,025 messages, 41% of 12.0 MiB, 1,512/s, 7 s left")
                == "rwsecret: 3,025 messages, 41% of 12.0 MiB, waiting for input")
        #expect(ProgressLine.waiting("rwsecret: 3 messages, 0/s, 12 s") == "rwsecret: 3 messages, waiting for input")
    }

    // Issue 35 item 7: a slow run (scrypt tries of a second or more) showed "0/s".
    @Test("the rate never reads 0/s: a fraction below one a second, nothing before the first message")
    func neverZeroPerSecond() {
        var rate = RateEstimate()
        let slow = ProgressLine.messagesText(done: 2, bytes: nil, total: nil, elapsed: 7_000, rate: &rate)
        #expect(slow == "rwsecret: 2 messages, 0.3/s, 7 s", "\(slow)")
        let none = ProgressLine.messagesText(done: 0, bytes: 10, total: 1000, elapsed: 3_000, rate: &rate)
        #expect(!none.contains("0/s") && !none.contains("/s"), "\(none)")
        let fast = ProgressLine.messagesText(done: 3025, bytes: nil, total: nil, elapsed: 2_000, rate: &rate)
        #expect(fast == "rwsecret: 3,025 messages, 1,513/s, 2 s", "\(fast)")
        #expect(ProgressLine.perSecond(0.04) == "0.04/s" && ProgressLine.perSecond(0.001) == "<0.01/s" && ProgressLine.perSecond(0) == nil)
        let bytes = ProgressLine.bytesText(bytesDone: 0, total: 1 << 20, elapsed: 5_000, rate: &rate)
        #expect(!bytes.contains("0 B/s"), "\(bytes)")
        #expect(ProgressLine.waiting("rwsecret: 0 messages, 12 s") == "rwsecret: 0 messages, waiting for input")
        #expect(ProgressLine.waiting("rwsecret: 2 messages, 0.3/s, 7 s") == "rwsecret: 2 messages, waiting for input")
    }
}
