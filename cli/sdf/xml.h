/*
 * A small element tree read with expat, for Microkit system descriptions:
 * each element with its name, attributes (in file order), the 1-based line
 * and column of its `<`, its child elements, and whether non-blank text
 * sits directly inside it. Comments and processing instructions are
 * dropped; nothing else of XML is kept.
 */
#ifndef MCSIM_SDF_XML_H
#define MCSIM_SDF_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sdf_xml_attr {
    char *name;
    char *value;
};

struct sdf_xml_node {
    char *name;
    uint32_t line, col;
    struct sdf_xml_attr *attrs;
    size_t n_attrs;
    struct sdf_xml_node **kids;
    size_t n_kids, cap_kids;
    bool has_text; /* non-blank character data directly inside */
    struct sdf_xml_node *parent;
};

/* Parse `len` bytes of XML. On success returns the root element; on a
 * malformed document returns NULL with *line, *col and the message
 * (static or in `msg`, `msg_len` bytes) filled. */
struct sdf_xml_node *sdf_xml_parse(const char *text, size_t len, uint32_t *line, uint32_t *col,
                                   char *msg, size_t msg_len);

void sdf_xml_free(struct sdf_xml_node *n);

/* The value of attribute `name`, or NULL. */
const char *sdf_xml_attr(const struct sdf_xml_node *n, const char *name);

#endif /* MCSIM_SDF_XML_H */
