/// A binary heap ordered by `areInIncreasingOrder`: `first`/`popFirst` give the smallest
/// element by that order (use a reversed order for a max-heap). O(log n) push and pop.
struct BinaryHeap<Element> {
    private(set) var elements: [Element] = []
    let areInIncreasingOrder: (Element, Element) -> Bool

    init(_ areInIncreasingOrder: @escaping (Element, Element) -> Bool) {
        self.areInIncreasingOrder = areInIncreasingOrder
    }

    var count: Int { elements.count }
    var isEmpty: Bool { elements.isEmpty }
    var first: Element? { elements.first }

    mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard areInIncreasingOrder(elements[child], elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popFirst() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < elements.count && areInIncreasingOrder(elements[left], elements[smallest]) { smallest = left }
            if right < elements.count && areInIncreasingOrder(elements[right], elements[smallest]) { smallest = right }
            if smallest == parent { break }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
