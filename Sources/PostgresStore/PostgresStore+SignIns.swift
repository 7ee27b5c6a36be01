import SQLCore
import Tracking

/// Failed sign-ins and known addresses: `SQLCore.SignInTables`, written once for both stores.
extension PostgresStore: SignInRecordStore {}
