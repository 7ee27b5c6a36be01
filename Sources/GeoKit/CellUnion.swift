/// Operations on sets of cell ids viewed as unions of cells.
enum CellUnion {
    /// Sorted, without cells contained in others, complete sibling sets merged into their parent
    /// (repeatedly). The union of the cells is unchanged. Invalid ids are dropped.
    static func normalized(_ cells: [CellID]) -> [CellID] {
        var sorted = cells.allSatisfy(\.isValid) ? cells : cells.filter(\.isValid)
        sortByID(&sorted)
        var output: [CellID] = []
        output.reserveCapacity(sorted.count)
        for original in sorted {
            var id = original
            if let last = output.last, last.contains(id) { continue }
            while let last = output.last, id.contains(last) {
                output.removeLast()
            }
            while output.count >= 3 && !id.isFace {
                let parent = id.parent()
                let n = output.count
                guard output[n - 3] == parent.child(position: 0), output[n - 2] == parent.child(position: 1),
                      output[n - 1] == parent.child(position: 2), id == parent.child(position: 3) else { break }
                output.removeLast(3)
                id = parent
            }
            output.append(id)
        }
        return output
    }

    /// Sorts ids in increasing order: insertion sort for the short lists coverings produce, the
    /// standard sort otherwise.
    static func sortByID(_ ids: inout [CellID]) {
        guard ids.count > 24 else {
            ids.withUnsafeMutableBufferPointer { buffer in
                guard buffer.count > 1 else { return }
                for k in 1..<buffer.count {
                    let value = buffer[k]
                    var i = k
                    while i > 0 && buffer[i - 1].id > value.id {
                        buffer[i] = buffer[i - 1]
                        i -= 1
                    }
                    buffer[i] = value
                }
            }
            return
        }
        ids.sort { $0.id < $1.id }
    }

    /// Replaces cells above `minLevel`, or at levels not of the form `minLevel + k·levelMod`, by
    /// their descendants at the next allowed level. Sorted, non-overlapping input stays so.
    static func denormalized(_ cells: [CellID], minLevel: Int, levelMod: Int) -> [CellID] {
        var output: [CellID] = []
        output.reserveCapacity(cells.count)
        for id in cells {
            let level = id.level
            var target = Swift.max(level, minLevel)
            if levelMod > 1 && target > minLevel {
                let remainder = (target - minLevel) % levelMod
                if remainder != 0 {
                    target = Swift.min(CellID.maxLevel, target + levelMod - remainder)
                }
            }
            if target == level {
                output.append(id)
                continue
            }
            var child = id.childBegin(level: target)
            let end = id.childEnd(level: target)
            while child != end {
                output.append(child)
                child = child.next
            }
        }
        return output
    }

    /// Merges cells into common ancestors (at allowed levels ≥ `minLevel`) until at most
    /// `maxCells` remain or no merge is possible. Each step replaces the adjacent pair whose
    /// common ancestor is deepest, and everything under that ancestor, by the ancestor; the union
    /// only grows. Input must be sorted and non-overlapping.
    static func coarsened(_ cells: [CellID], toAtMost maxCells: Int, minLevel: Int, levelMod: Int) -> [CellID] {
        var cells = cells
        while cells.count > maxCells {
            var bestLevel = -1
            var bestIndex = -1
            for i in 0..<(cells.count - 1) {
                guard var level = cells[i].commonAncestorLevel(cells[i + 1]), level >= minLevel else { continue }
                level = minLevel + ((level - minLevel) / levelMod) * levelMod
                if level > bestLevel {
                    bestLevel = level
                    bestIndex = i
                }
            }
            guard bestIndex >= 0 else { break }
            let ancestor = cells[bestIndex].parent(level: bestLevel)
            var merged: [CellID] = []
            merged.reserveCapacity(cells.count)
            var inserted = false
            for id in cells {
                if ancestor.contains(id) {
                    if !inserted {
                        merged.append(ancestor)
                        inserted = true
                    }
                } else {
                    merged.append(id)
                }
            }
            cells = merged
        }
        return cells
    }
}
