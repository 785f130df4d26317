// Kernel files that include the AscendCL header for its types (a launcher's aclrtStream) compile against the
// simulator's ACL stand-in. A kernel built alone (compile_kernel) is not linked with it: calling the runtime from
// such a build fails when the library loads; a kernel-launch sample build (launch_sample.py) links it.
#pragma once
#include "../host/acl/acl.h"
