/*
 * The bootstrap RBAC policy (rbac_bootstrap.json), embedded as read-only bytes like the
 * catalog. The path is relative to the repository root, where make runs. A NUL follows the
 * bytes.
 */
    .section .rodata
    .balign 16
    .global gw_rbac_blob_start
    .type gw_rbac_blob_start, @object
gw_rbac_blob_start:
    .incbin "gateway/controllers/rbac_bootstrap.json"
    .global gw_rbac_blob_end
    .type gw_rbac_blob_end, @object
gw_rbac_blob_end:
    .byte 0

    .section .note.GNU-stack, "", @progbits
