/// Quoting of identifiers (table, column, channel names) for SQL built by this client.
public enum SQLIdentifier {
    /// `name` as a double-quoted identifier: `my "table"` → `"my ""table"""`. Quoted names are
    /// case-sensitive: `quoted("Fixes")` names a different table than unquoted `Fixes`.
    public static func quoted(_ name: String) -> String {
        var text = "\""
        for character in name {
            if character == "\"" { text.append("\"\"") } else { text.append(character) }
        }
        text.append("\"")
        return text
    }
}
