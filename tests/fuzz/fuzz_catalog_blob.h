#ifndef TESTS_FUZZ_FUZZ_CATALOG_BLOB_H
#define TESTS_FUZZ_FUZZ_CATALOG_BLOB_H

/* What gateway/catalog/gw_catalog_blob.S embeds into the library, for the drivers that include
 * gw_catalog.c (a driver builds on its own, without the library). make runs clang from the
 * repository root, so the path resolves. Include it once per driver. */
__asm__(".section .rodata\n"
        ".balign 16\n"
        ".global gw_catalog_blob_start\n"
        "gw_catalog_blob_start:\n"
        ".incbin \"gateway/catalog/catalog.json\"\n"
        ".global gw_catalog_blob_end\n"
        "gw_catalog_blob_end:\n"
        ".byte 0\n"
        ".section .note.GNU-stack,\"\",@progbits\n"
        ".text\n");

#endif
