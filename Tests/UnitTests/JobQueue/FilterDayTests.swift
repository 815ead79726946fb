import JobQueue
import QueueReads
import Testing

@Suite("Filter days")
struct FilterDayTests {
    @Test("a day is YYYY-MM-DD and exists; anything else is no filter, never an SQL error")
    func days() {
        for good in ["2026-11-24", "2024-02-29", "1999-12-31"] {
            #expect(JobControl.Selection.day(good) == good && JobFilter.day(good) == good, "\(good)")
        }
        for bad in ["2026-02-30", "2026-13-01", "2026-11-24T00:00:00Z", "24/11/2026", "", "2026-1-5", "2023-02-29"] {
            #expect(JobControl.Selection.day(bad) == nil && JobFilter.day(bad) == nil, "\(bad)")
        }
    }
}
