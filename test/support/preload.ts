// Loaded before every test file (bunfig.toml): hooks here run once for the whole `bun test` process.
import { afterAll } from "bun:test";
import { stopSuiteCluster } from "./suite-postgres";
import { removeTempDirs } from "./temp-dir";

afterAll(stopSuiteCluster);
afterAll(removeTempDirs);
