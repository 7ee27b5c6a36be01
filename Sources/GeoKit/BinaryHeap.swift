/// A binary heap ordered by `areInIncreasingOrder`: `first`/`popFirst` give the smallest
/// element by that order (use a reversed order for a max-heap). O(log n) push and pop.
public struct BinaryHeap<Element> {
    /// The elements in heap order (`storage[0]` is the smallest).
    @usableFromInline var storage: [Element] = []
    @usableFromInline let areInIncreasingOrder: (Element, Element) -> Bool

    /// An empty heap with room for `capacity` elements before it grows.
    public init(capacity: Int = 0, _ areInIncreasingOrder: @escaping (Element, Element) -> Bool) {
        self.areInIncreasingOrder = areInIncreasingOrder
        storage.reserveCapacity(capacity)
    }

    /// The elements in heap order.
    public var elements: [Element] { storage }
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    public var first: Element? { storage.first }

    @inlinable
    public mutating func push(_ element: Element) {
        storage.append(element)
        var child = storage.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard areInIncreasingOrder(storage[child], storage[parent]) else { break }
            storage.swapAt(child, parent)
            child = parent
        }
    }

    @inlinable
    public mutating func popFirst() -> Element? {
        guard !storage.isEmpty else { return nil }
        storage.swapAt(0, storage.count - 1)
        let top = storage.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < storage.count && areInIncreasingOrder(storage[left], storage[smallest]) { smallest = left }
            if right < storage.count && areInIncreasingOrder(storage[right], storage[smallest]) { smallest = right }
            if smallest == parent { break }
            storage.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
