@testable import EntlRuntime
import EntlTestSupport
import Testing

/// Month windows step from one boundary to the next without the calendar when the anchor's day
/// is one every month has; the boundary must be the one computed from the anchor.
@Suite struct WindowBoundaryTests {
    @Test(arguments: [Interval.month, .quarter, .halfYear, .year])
    func theNextStartIsTheOneFromTheAnchor(_ interval: Interval) {
        // Every day of the month (clamped ones take the calendar path), leap years, a time of day
        // with a fraction, years before 1970 and far ahead.
        for anchorText in ["2024-01-01T00:00:00Z", "2023-02-28T23:59:59.5Z", "2024-02-29T12:00:00Z",
                           "2026-11-03T10:00:00Z", "2026-01-28T08:00:00Z", "2026-01-29T08:00:00Z",
                           "2026-01-31T08:00:00Z", "1899-12-15T00:00:00Z", "0001-03-01T00:00:00Z",
                           "9999-06-10T00:00:00Z"] {
            let windows = Windows(anchor: instant(anchorText), step: interval.step)
            for k in Int64(-30)...30 {
                #expect(windows.start(after: windows.start(k), index: k) == windows.start(k + 1), "\(anchorText) k=\(k)")
            }
        }
    }

    @Test func aBoundaryFarFromTheAnchorIsComputedFromIt() {
        let windows = Windows(anchor: instant("2026-11-03T10:00:00Z"), step: Interval.month.step)
        for k: Int64 in [999_999, 1_000_000, -1_000_000, 5_000_000] {
            #expect(windows.start(after: windows.start(k), index: k) == windows.start(k + 1))
        }
        #expect(windows.start(after: windows.start(2), index: 2) == instant("2027-02-03T10:00:00Z"))
    }

    @Test func theWindowContainingAnInstantHasItsBounds() {
        let windows = Windows(anchor: instant("2026-11-03T10:00:00Z"), step: Interval.month.step)
        let w = windows.window(containing: instant("2026-10-30T23:00:00Z"))
        #expect(w.index == -1)
        #expect(w.start == instant("2026-10-03T10:00:00Z"))
        #expect(w.end == instant("2026-11-03T10:00:00Z"))
        let far = windows.window(containing: instant("2031-03-03T10:00:00Z"))
        #expect((far.index, far.start, far.end) == (52, instant("2031-03-03T10:00:00Z"), instant("2031-04-03T10:00:00Z")))
    }
}
