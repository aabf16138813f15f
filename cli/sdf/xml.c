/*
 * The element tree of xml.h, built from expat's callbacks. Expat reports
 * the position of a start tag's `<` in its start-element callback: that
 * is the place Microkit's tool gives an element (line, column from 1).
 */
#include "xml.h"

#include "util/diag.h"
#include "util/grow.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct builder {
    XML_Parser p;
    struct sdf_xml_node *root;
    struct sdf_xml_node *cur;
    bool oom;
};

static bool add_kid(struct sdf_xml_node *parent, struct sdf_xml_node *kid)
{
    if (!grow_one(&parent->kids, &parent->cap_kids, parent->n_kids, sizeof *parent->kids))
        return false;
    parent->kids[parent->n_kids++] = kid;
    return true;
}

static struct sdf_xml_node *new_node(struct builder *b, const char *name, const char **atts)
{
    struct sdf_xml_node *n = calloc(1, sizeof *n);
    size_t na = 0;
    if (!n)
        return NULL;
    n->name = diag_strdup(name);
    n->line = (uint32_t)XML_GetCurrentLineNumber(b->p);
    n->col = (uint32_t)XML_GetCurrentColumnNumber(b->p) + 1;
    while (atts[2 * na])
        na++;
    n->attrs = na ? calloc(na, sizeof *n->attrs) : NULL;
    if (!n->name || (na && !n->attrs)) {
        sdf_xml_free(n);
        return NULL;
    }
    for (size_t i = 0; i < na; i++) {
        n->attrs[i].name = diag_strdup(atts[2 * i]);
        n->attrs[i].value = diag_strdup(atts[2 * i + 1]);
        n->n_attrs = i + 1;
        if (!n->attrs[i].name || !n->attrs[i].value) {
            sdf_xml_free(n);
            return NULL;
        }
    }
    return n;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    struct builder *b = ud;
    struct sdf_xml_node *n = new_node(b, name, atts);
    if (!n || (b->cur && !add_kid(b->cur, n))) {
        sdf_xml_free(n);
        b->oom = true;
        XML_StopParser(b->p, XML_FALSE);
        return;
    }
    n->parent = b->cur;
    if (!b->cur)
        b->root = n;
    b->cur = n;
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    struct builder *b = ud;
    (void)name;
    if (b->cur)
        b->cur = b->cur->parent;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    struct builder *b = ud;
    if (!b->cur)
        return;
    for (int i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            b->cur->has_text = true;
}

struct sdf_xml_node *sdf_xml_parse(const char *text, size_t len, uint32_t *line, uint32_t *col,
                                   char *msg, size_t msg_len)
{
    struct builder b = {0};
    b.p = XML_ParserCreate("UTF-8");
    if (!b.p) {
        snprintf(msg, msg_len, "out of memory");
        *line = *col = 0;
        return NULL;
    }
    XML_SetUserData(b.p, &b);
    XML_SetElementHandler(b.p, on_start, on_end);
    XML_SetCharacterDataHandler(b.p, on_text);
    if (XML_Parse(b.p, text, (int)len, XML_TRUE) != XML_STATUS_OK || b.oom) {
        *line = (uint32_t)XML_GetCurrentLineNumber(b.p);
        *col = (uint32_t)XML_GetCurrentColumnNumber(b.p) + 1;
        snprintf(msg, msg_len, "%s",
                 b.oom ? "out of memory" : XML_ErrorString(XML_GetErrorCode(b.p)));
        XML_ParserFree(b.p);
        sdf_xml_free(b.root);
        return NULL;
    }
    XML_ParserFree(b.p);
    return b.root;
}

void sdf_xml_free(struct sdf_xml_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n_kids; i++)
        sdf_xml_free(n->kids[i]);
    for (size_t i = 0; i < n->n_attrs; i++) {
        free(n->attrs[i].name);
        free(n->attrs[i].value);
    }
    free(n->attrs);
    free(n->kids);
    free(n->name);
    free(n);
}

const char *sdf_xml_attr(const struct sdf_xml_node *n, const char *name)
{
    for (size_t i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return n->attrs[i].value;
    return NULL;
}
