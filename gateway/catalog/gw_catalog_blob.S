/*
 * The built-in resource catalog, embedded as read-only bytes so that the binary needs no data
 * files at run time. The path is relative to the repository root, where make runs. A NUL
 * follows the bytes; gw_catalog_blob_end points at it.
 */
    .section .rodata
    .balign 16
    .global gw_catalog_blob_start
    .type gw_catalog_blob_start, @object
gw_catalog_blob_start:
    .incbin "gateway/catalog/catalog.json"
    .global gw_catalog_blob_end
    .type gw_catalog_blob_end, @object
gw_catalog_blob_end:
    .byte 0

    .section .note.GNU-stack, "", @progbits
