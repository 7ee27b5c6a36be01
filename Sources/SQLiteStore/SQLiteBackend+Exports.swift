import SQLCore
import Tracking

/// What an export reads: `SQLCore.ExportTables`, written once for both stores.
extension SQLiteBackend: ExportStore {}
