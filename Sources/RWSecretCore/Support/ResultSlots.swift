/// Slots that concurrent iterations each write once (distinct indices, so no lock is needed).
package final class ResultSlots<Value>: @unchecked Sendable {
    // Raw memory, not an Array: each write to an Array is a formal access to the whole
    // array (uniqueness check, write-back), which races between threads (ThreadSanitizer).
    private let slots: UnsafeMutableBufferPointer<Value?>
    package init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }
    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }
    package subscript(index: Int) -> Value? {
        get { slots[index] }
        set { slots[index] = newValue }
    }
    package var values: [Value] { slots.map { $0! } }
}
