import { hostInstallSuite } from "../helpers/host-install-suite";

// The module installed on a host database that already holds data: normal layout.
hostInstallSuite("normal");
